// How stored sessions and messages are shown over the API: the session list's entries, and a
// branch's messages with their ids, parents, other versions, fold marks and summary entries.
import type { ChatMessage } from '../../model-providers/types.ts';
import type {
  SessionSummary,
  SessionTree,
  StoredMessage,
  StoredSummary,
} from '../../storage/session-store.ts';
import { childrenOf } from '../../storage/session-branches.ts';
import type { SessionMessageView, SessionView } from './sessions.schema.ts';

export function sessionIdOf(key: string): string {
  const match = /:scope:[^:]+:(.*)$/.exec(key);
  return match?.[1] ?? key;
}

export function sessionView(summary: SessionSummary): SessionView {
  const marker = `:scope:${summary.scope}:`;
  const at = summary.key.indexOf(marker);
  return {
    key: summary.key,
    sessionId: at < 0 ? summary.key : summary.key.slice(at + marker.length),
    agentId: summary.agentId,
    channel: summary.channel,
    scope: summary.scope,
    title: summary.title,
    preview: summary.preview,
    messageCount: summary.messageCount,
    pinned: summary.pinned,
    archived: summary.archived,
    createdAt: new Date(summary.createdAt).toISOString(),
    updatedAt: new Date(summary.updatedAt).toISOString(),
  };
}

export function baseView(message: ChatMessage): SessionMessageView {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return {
        role: 'user',
        content: message.content,
        ...(message.images ? { images: message.images } : {}),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
      };
    case 'tool':
      return { role: 'tool', content: message.content, toolCallId: message.toolCallId };
  }
}

/**
 * The active branch's messages, oldest first, each with its id, parent and other versions, and
 * each summary entry right after the last message it folds.
 */
export function branchViews(
  entries: StoredMessage[],
  summaries: StoredSummary[],
  tree: SessionTree | undefined,
): SessionMessageView[] {
  const children = tree ? childrenOf(tree.nodes) : undefined;
  const parents = new Map(tree?.nodes.map((node) => [node.id, node.parentId]));
  const views: SessionMessageView[] = [];
  let next = 0;
  let previous = 0;
  for (const entry of entries) {
    const folder = summaries.find((summary) => entry.id <= summary.lastId);
    const parentId = parents.get(entry.id) ?? previous;
    const siblings = children?.get(parentId) ?? [];
    views.push({
      id: entry.id,
      ...baseView(entry.message),
      ...(folder ? { folded: true, summaryId: folder.id } : {}),
      ...(entry.status ? { status: entry.status } : {}),
      ...(entry.error ? { error: entry.error } : {}),
      ...(entry.usage ? { usage: entry.usage } : {}),
      parentId,
      ...(siblings.length > 1 ? { siblingIds: siblings } : {}),
      createdAt: new Date(entry.createdAt).toISOString(),
    });
    previous = entry.id;
    while (next < summaries.length && (summaries[next]?.lastId ?? 0) <= entry.id) {
      const folding = summaries[next] as StoredSummary;
      views.push({
        id: folding.id,
        role: 'summary',
        content: folding.content,
        firstId: folding.firstId,
        lastId: folding.lastId,
      });
      next += 1;
    }
  }
  return views;
}
