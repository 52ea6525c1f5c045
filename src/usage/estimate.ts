// Token estimates where a provider reported none (a stream cut short, a provider without usage),
// and the reservation a budget holds for a call in flight. Estimates are marked as such in records.
import type { ModelRequest } from '../model-providers/types.ts';

/** About four characters a token for the usual languages. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Characters of what is sent: messages (with a few per message for roles) and tool specs. */
export function requestCharacters(request: Pick<ModelRequest, 'messages' | 'tools'>): number {
  let characters = 0;
  for (const message of request.messages) {
    characters += 16;
    if (message.content) characters += message.content.length;
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) characters += call.name.length + call.arguments.length;
  }
  for (const tool of request.tools ?? []) characters += JSON.stringify(tool).length;
  return characters;
}

export function estimateInputTokens(request: Pick<ModelRequest, 'messages' | 'tools'>): number {
  return Math.ceil(requestCharacters(request) / 4);
}

/** Output tokens a reservation holds when the call sets no max_tokens. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 1024;

/**
 * Tokens held for a call in flight: the input counted generously (three characters a token, so
 * that it is rarely below what the provider reports) and the output at max_tokens.
 */
export function reservationTokens(request: Pick<ModelRequest, 'messages' | 'tools' | 'params'>): {
  input: number;
  output: number;
} {
  return {
    input: Math.ceil(requestCharacters(request) / 3),
    output: request.params?.maxTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS,
  };
}
