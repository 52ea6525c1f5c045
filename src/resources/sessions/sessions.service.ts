// Conversation sessions for the REST API: an agent's sessions, their messages, titles, deletion.
// Callers are users (or anyone while auth is off), who see every session of the agent, or `api`
// channel accounts, who see only their own (scope per_account_channel_peer, keyed by account).
import { sessionOwner } from '../../auth/agent-access.ts';
import type { Principal } from '../../auth/auth-service.ts';
import { notFound } from '../../core/errors.ts';
import { paginate, type Page, type Pagination } from '../../http/pagination.ts';
import type { ChatMessage } from '../../model-providers/types.ts';
import type {
  SessionStore,
  SessionSummary,
  StoredMessage,
  StoredSummary,
} from '../../storage/session-store.ts';
import type { SessionSearch } from '../../storage/session-search.ts';
import type { CompactionResult } from '../../turns/compactor.ts';
import { DEFAULT_SCOPE, sessionKey } from '../../turns/session-key.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type {
  ClearAnswer,
  ClearBody,
  CompactAnswer,
  SessionSearchAnswer,
  SessionSearchQuery,
  SessionListQuery,
  SessionMessageView,
  SessionView,
} from './sessions.schema.ts';

const ACCOUNT_SCOPE = 'per_account_channel_peer';

/** The key prefix an api account's sessions of one agent share. */
function accountPrefix(agentId: string, accountId: string): string {
  return `${sessionKey({ agentId, channel: 'api', scope: ACCOUNT_SCOPE, scopeId: accountId })}:`;
}

function view(summary: SessionSummary): SessionView {
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
    createdAt: new Date(summary.createdAt).toISOString(),
    updatedAt: new Date(summary.updatedAt).toISOString(),
  };
}

/** A stored message with its id, whether a summary folds it, and how its turn ended. */
function storedView(entry: StoredMessage, summaries: StoredSummary[]): SessionMessageView {
  const folder = summaries.find((summary) => entry.id <= summary.lastId);
  return {
    id: entry.id,
    ...baseView(entry.message),
    ...(folder ? { folded: true, summaryId: folder.id } : {}),
    ...(entry.status ? { status: entry.status } : {}),
    ...(entry.error ? { error: entry.error } : {}),
    ...(entry.usage ? { usage: entry.usage } : {}),
  };
}

function baseView(message: ChatMessage): SessionMessageView {
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

/** Session search and compaction, from the turns layer. */
export interface SessionMemory {
  search: Pick<SessionSearch, 'search'>;
  compact(agentId: string, key: string, signal: AbortSignal): Promise<CompactionResult>;
}

function sessionIdOf(key: string): string {
  const match = /:scope:[^:]+:(.*)$/.exec(key);
  return match?.[1] ?? key;
}

export class SessionsService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly agents: AgentCheck,
    private readonly memory: SessionMemory,
  ) {}

  /** A session of another agent, or none, is answered with success: false rather than an error. */
  async clear(body: ClearBody): Promise<ClearAnswer> {
    const { agentId, channel, scope } = body;
    const key = body.sessionKey.startsWith('agent:')
      ? body.sessionKey
      : sessionKey({ agentId, channel, scope, scopeId: body.sessionKey });
    if (!key.startsWith(`agent:${agentId}:`)) {
      return { success: false, message: `session "${key}" does not belong to agent "${agentId}"` };
    }
    const cleared = await this.sessions.clear(key);
    return cleared
      ? { success: true, message: `session "${key}" cleared` }
      : { success: false, message: `session "${key}" not found` };
  }

  async list(
    agentId: string,
    query: SessionListQuery,
    caller: Principal | undefined,
  ): Promise<Page<SessionView>> {
    this.agents.requireAgent(agentId);
    const { page, size, channel } = query;
    const owner = sessionOwner(caller);
    const { sessions, total } = await this.sessions.list({
      agentId,
      ...(owner !== undefined ? { keyPrefix: accountPrefix(agentId, owner) } : {}),
      ...(channel !== undefined ? { channel } : {}),
      offset: (page - 1) * size,
      limit: size,
    });
    return { data: sessions.map(view), total, page, size };
  }

  async get(agentId: string, key: string, caller: Principal | undefined): Promise<SessionView> {
    return view(await this.summary(agentId, key, caller));
  }

  /** The messages of a session, oldest first. */
  async messages(
    agentId: string,
    key: string,
    pagination: Pagination,
    caller: Principal | undefined,
  ): Promise<Page<SessionMessageView>> {
    const summary = await this.summary(agentId, key, caller);
    const entries = await this.sessions.entries(summary.key);
    const summaries = await this.sessions.summaries(summary.key);
    const views: SessionMessageView[] = [];
    let next = 0;
    for (const entry of entries) {
      views.push(storedView(entry, summaries));
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
    return paginate(views, pagination);
  }

  /** Keyword search over the agent's transcripts the caller may see (as the session list). */
  async search(
    agentId: string,
    query: SessionSearchQuery,
    caller: Principal | undefined,
  ): Promise<SessionSearchAnswer> {
    this.agents.requireAgent(agentId);
    const scope = caller?.kind === 'account' ? { prefixes: [accountPrefix(agentId, caller.accountId)] } : {};
    const hits = await this.memory.search.search(agentId, scope, query.q, query.limit);
    return {
      results: hits.map((hit) => ({ ...hit, sessionId: sessionIdOf(hit.sessionKey) })),
    };
  }

  /** Compacts a session now: the memory flush, then a summary of all but its newest turns. */
  async compact(
    agentId: string,
    key: string,
    caller: Principal | undefined,
    signal: AbortSignal,
  ): Promise<CompactAnswer> {
    const summary = await this.summary(agentId, key, caller);
    const result = await this.memory.compact(agentId, summary.key, signal);
    return {
      compacted: result.compacted,
      folded: result.folded,
      flushed: result.flushed,
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.summary
        ? {
            summary: {
              id: result.summary.id,
              firstId: result.summary.firstId,
              lastId: result.summary.lastId,
              content: result.summary.content,
            },
          }
        : {}),
    };
  }

  async rename(
    agentId: string,
    key: string,
    title: string | null,
    caller: Principal | undefined,
  ): Promise<SessionView> {
    const summary = await this.summary(agentId, key, caller);
    await this.sessions.setTitle(summary.key, title);
    return view({ ...summary, title });
  }

  async remove(agentId: string, key: string, caller: Principal | undefined): Promise<string> {
    const summary = await this.summary(agentId, key, caller);
    await this.sessions.clear(summary.key);
    return summary.key;
  }

  /**
   * The session a path names, if the caller may see it: a full key of this agent, or a chat
   * sessionId (the caller's own session of the api channel). Anything else is the same 404, so an
   * account cannot tell another's session from a missing one.
   */
  private async summary(
    agentId: string,
    given: string,
    caller: Principal | undefined,
  ): Promise<SessionSummary> {
    this.agents.requireAgent(agentId);
    const owner = sessionOwner(caller);
    const own = owner !== undefined ? accountPrefix(agentId, owner) : `agent:${agentId}:`;
    const key = given.startsWith('agent:')
      ? given
      : owner !== undefined
        ? `${own}${given}`
        : sessionKey({ agentId, channel: 'api', scope: DEFAULT_SCOPE, scopeId: given });
    const summary = key.startsWith(own) ? await this.sessions.get(key) : undefined;
    if (!summary) throw notFound(`session "${given}" of agent "${agentId}" not found`);
    return summary;
  }
}
