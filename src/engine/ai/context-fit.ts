// The last guard before a request leaves: its estimated size against the model's window. Old tool
// results are cut to their head and tail for this request only (the session keeps them whole);
// a request that still does not fit is refused here, visibly, rather than sent to fail upstream.
import { AppError } from '../../core/errors.ts';
import type { ChatMessage, ToolSpec } from '../../model-providers/types.ts';
import { estimateTokens } from '../../storage/session-store.ts';

const KEPT_CHARS = 600;

export function requestTokens(messages: ChatMessage[], tools: ToolSpec[]): number {
  let total = tools.length > 0 ? Math.ceil(JSON.stringify(tools).length / 4) : 0;
  for (const message of messages) total += estimateTokens(message);
  return total;
}

/** Whether an upstream error says the request was longer than the model's context. */
export function isContextOverflow(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|context_length_exceeded|input is too long|reduce the length/i.test(
    text,
  );
}

/**
 * The messages to send within `budget` tokens: as given when they fit, else with the oldest tool
 * results shortened (never the newest step's). Throws AppError('too-large') when even that is not enough.
 */
export function fitRequest(messages: ChatMessage[], tools: ToolSpec[], budget: number): ChatMessage[] {
  let total = requestTokens(messages, tools);
  if (total <= budget) return messages;
  const fitted = [...messages];
  // The newest tool results (after the last assistant message with calls) stay whole.
  let lastCall = fitted.length;
  for (let index = fitted.length - 1; index >= 0; index -= 1) {
    const message = fitted[index] as ChatMessage;
    if (message.role === 'assistant' && message.toolCalls?.length) {
      lastCall = index;
      break;
    }
  }
  for (let index = 0; index < lastCall && total > budget; index += 1) {
    const message = fitted[index] as ChatMessage;
    if (message.role !== 'tool' || message.content.length <= KEPT_CHARS * 2 + 100) continue;
    const cut = message.content.length - KEPT_CHARS * 2;
    const content = `${message.content.slice(0, KEPT_CHARS)}\n[... ${cut} characters left out of this request; the session keeps them]\n${message.content.slice(-KEPT_CHARS)}`;
    const shortened: ChatMessage = { ...message, content };
    total += estimateTokens(shortened) - estimateTokens(message);
    fitted[index] = shortened;
  }
  if (total > budget)
    throw new AppError(
      'too-large',
      `the conversation does not fit the model's context window: about ${total} tokens for a budget of ${budget}`,
    );
  return fitted;
}
