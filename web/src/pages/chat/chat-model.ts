// What the transcript shows: user messages and assistant turns (text, tool calls, usage), built
// from a session's stored messages or from the chat stream's chunks as they arrive.
import type { ChatCompletionChunk, ChatErrorFrame } from '@server/chat/chat.schema.ts';
import type { SessionMessageView } from '@server/resources/sessions/sessions.schema.ts';

export interface ToolCallView {
  id: string;
  name: string;
  toolType: string;
  arguments: string;
  result?: string;
  status: 'running' | 'done' | 'failed';
}

export interface Usage {
  prompt: number;
  completion: number;
  total: number;
}

/** Where a stored message sits among its versions (edits of a message, regenerated answers). */
export interface Stored {
  /** The stored message's id (the first of an answer's messages); absent while it streams. */
  messageId?: number;
  /** The message it follows (0: none): an edit is sent after it. */
  parentId?: number;
  /** Every version's id, oldest first, when there is more than one. */
  siblingIds?: number[];
}

export interface UserItem extends Stored {
  kind: 'user';
  id: string;
  text: string;
  images: string[];
  /** Compacted: the model now sees a summary in its place. */
  folded?: boolean;
}

/** A compaction summary entry, shown after the last message it folds. */
export interface SummaryItem {
  kind: 'summary';
  id: string;
  text: string;
  firstId: number;
  lastId: number;
}

export interface AssistantItem extends Stored {
  kind: 'assistant';
  id: string;
  text: string;
  tools: ToolCallView[];
  status: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: string;
  usage?: Usage;
  /** How many tool calls had started when text last arrived: text after new calls is a new paragraph. */
  toolsAtText?: number;
  folded?: boolean;
}

export type ChatItem = UserItem | AssistantItem | SummaryItem;

/** A message as GET /agents/{id}/sessions/{key}/messages answers it. */
export type StoredMessage = SessionMessageView;

let counter = 0;
export const itemId = (): string => `item-${++counter}`;

/** Tools report failure as a result starting with "error:" (the agent loop's convention). */
export function isFailure(result: string): boolean {
  return /^error:/i.test(result.trimStart());
}

function storedOf(message: StoredMessage): Stored {
  return {
    ...(message.id !== undefined ? { messageId: message.id } : {}),
    ...(message.parentId !== undefined ? { parentId: message.parentId } : {}),
    ...(message.siblingIds ? { siblingIds: message.siblingIds } : {}),
  };
}

export function fromHistory(messages: StoredMessage[]): ChatItem[] {
  const items: ChatItem[] = [];
  let turn: AssistantItem | undefined;
  for (const message of messages) {
    const folded = message.folded ? { folded: true } : {};
    if (message.role === 'summary') {
      turn = undefined;
      items.push({
        kind: 'summary',
        id: itemId(),
        text: message.content ?? '',
        firstId: message.firstId ?? 0,
        lastId: message.lastId ?? 0,
      });
      continue;
    }
    if (message.role === 'user') {
      turn = undefined;
      items.push({
        kind: 'user',
        id: itemId(),
        text: message.content ?? '',
        images: message.images ?? [],
        ...folded,
        ...storedOf(message),
      });
      continue;
    }
    if (message.role === 'system') continue;
    if (!turn) {
      turn = {
        kind: 'assistant',
        id: itemId(),
        text: '',
        tools: [],
        status: 'done',
        ...folded,
        ...storedOf(message),
      };
      items.push(turn);
    }
    if (message.status) {
      turn.status = message.status;
      if (message.error) turn.error = message.error;
    }
    if (message.usage)
      turn.usage = {
        prompt: message.usage.promptTokens,
        completion: message.usage.completionTokens,
        total: message.usage.totalTokens,
      };
    if (message.role === 'assistant') {
      if (message.content) turn.text += (turn.text ? '\n\n' : '') + message.content;
      for (const call of message.toolCalls ?? [])
        turn.tools.push({
          id: call.id,
          name: call.name,
          toolType: '',
          arguments: call.arguments,
          status: 'running',
        });
    } else {
      const call = turn.tools.find((tool) => tool.id === message.toolCallId);
      const result = message.content ?? '';
      if (call) {
        call.result = result;
        call.status = isFailure(result) ? 'failed' : 'done';
      }
    }
  }
  // A call with no stored result did not finish (the turn was stopped).
  for (const item of items)
    if (item.kind === 'assistant')
      for (const tool of item.tools) if (tool.status === 'running') tool.status = 'failed';
  return items;
}

/** Applies one chunk of the chat stream (AG-UI mode) to the assistant turn being streamed. */
export function applyChunk(turn: AssistantItem, payload: unknown): AssistantItem {
  const chunk = payload as ChatCompletionChunk | ChatErrorFrame;
  if ('error' in chunk) return { ...turn, status: 'failed', error: chunk.error };
  const next: AssistantItem = { ...turn, tools: [...turn.tools] };
  if (chunk.usage)
    next.usage = {
      prompt: chunk.usage.prompt_tokens ?? 0,
      completion: chunk.usage.completion_tokens ?? 0,
      total: chunk.usage.total_tokens ?? 0,
    };
  const delta = chunk.choices?.[0]?.delta;
  if (delta?.content) {
    // The model's words before and after a round of tool calls are two paragraphs, as the stored
    // history shows them (one assistant message per step), so a reload looks the same.
    const afterTools = next.tools.length > (next.toolsAtText ?? 0);
    next.text += (afterTools && next.text ? '\n\n' : '') + delta.content;
    next.toolsAtText = next.tools.length;
  }
  for (const call of delta?.tool_calls ?? []) {
    if (call.type === 'TOOL_CALL_START' && call.toolCallId) {
      next.tools.push({
        id: call.toolCallId,
        name: call.toolCallName ?? 'tool',
        toolType: call.toolType ?? '',
        arguments: call.arguments ?? '',
        status: 'running',
      });
    } else if (call.type === 'TOOL_CALL_RESULT' && call.toolCallId) {
      const result = call.content ?? '';
      next.tools = next.tools.map((tool) =>
        tool.id === call.toolCallId
          ? { ...tool, result, status: isFailure(result) ? 'failed' : 'done' }
          : tool,
      );
    }
  }
  return next;
}

/** Pretty JSON when the text is JSON, else the text. */
export function formatJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
