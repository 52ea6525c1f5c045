// Tool calls in a conversation's history: every assistant tool call needs its result before the next
// message, or an upstream refuses the conversation. A turn that ended on client tool calls leaves
// them open until the client's next request brings their results.
import { AppError } from '../core/errors.ts';
import type { ChatMessage } from '../model-providers/types.ts';

const NO_RESULT = 'error: the client gave no result for this tool call';

/** The calls of the last assistant message that still wait for results (none unless it ends the history). */
export function openToolCalls(history: ChatMessage[]): string[] {
  const answered = new Set<string>();
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index] as ChatMessage;
    if (message.role === 'tool') answered.add(message.toolCallId);
    else if (message.role === 'assistant' && message.toolCalls?.length)
      return message.toolCalls.map((call) => call.id).filter((id) => !answered.has(id));
    else return [];
  }
  return [];
}

/** The history with a stand-in result for every call that never got one, except the open ones at its end. */
export function closeToolCalls(history: ChatMessage[], keepEndOpen: boolean): ChatMessage[] {
  const result: ChatMessage[] = [];
  let waiting: string[] = [];
  const flush = (): void => {
    for (const id of waiting) result.push({ role: 'tool', toolCallId: id, content: NO_RESULT });
    waiting = [];
  };
  for (const message of history) {
    if (message.role === 'tool') {
      waiting = waiting.filter((id) => id !== message.toolCallId);
    } else {
      flush();
      if (message.role === 'assistant' && message.toolCalls?.length)
        waiting = message.toolCalls.map((call) => call.id);
    }
    result.push(message);
  }
  if (!keepEndOpen) flush();
  return result;
}

/**
 * The client's tool results that continue a turn, checked against the calls the history left open;
 * a call the client did not answer gets a stand-in result, so the model sees every call answered.
 */
export function resumeWith(history: ChatMessage[], results: ChatMessage[]): ChatMessage[] {
  const open = openToolCalls(history);
  if (open.length === 0)
    throw new AppError(
      'invalid',
      'messages: a tool message must answer a tool call of the last assistant message',
    );
  const left = new Set(open);
  for (const message of results) {
    if (message.role !== 'tool') continue;
    if (!left.delete(message.toolCallId))
      throw new AppError(
        'invalid',
        `messages: tool_call_id "${message.toolCallId}" answers no open tool call of the last assistant message`,
      );
  }
  return [
    ...results,
    ...[...left].map((id): ChatMessage => ({ role: 'tool', toolCallId: id, content: NO_RESULT })),
  ];
}
