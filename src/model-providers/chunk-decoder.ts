import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { AppError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { ModelEvent, ToolCallRequest } from './types.ts';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Turns streamed chat-completion chunks into ModelEvents. Tool calls arrive as fragments keyed
 * by index; they are gathered and emitted whole once the choice finishes (or the stream ends).
 */
export class ChunkDecoder {
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | undefined;

  constructor(private readonly fail: (reason: string) => AppError) {}

  push(chunk: ChatCompletionChunk): ModelEvent[] {
    if (typeof chunk !== 'object' || chunk === null) throw this.fail('malformed chunk');
    const events: ModelEvent[] = [];
    const choices: unknown = chunk.choices ?? [];
    if (!Array.isArray(choices)) throw this.fail('malformed chunk');
    // Only the first choice matters: requests never ask for n > 1.
    const choice = (choices as ChatCompletionChunk.Choice[]).find(
      (candidate) => (candidate.index ?? 0) === 0,
    );
    if (choice) {
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '')
        events.push({ type: 'text-delta', text: delta.content });
      delta.tool_calls?.forEach((fragment, position) => this.addFragment(fragment, position));
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        events.push(...this.flushCalls());
      }
    }
    if (chunk.usage) {
      const promptTokens = chunk.usage.prompt_tokens ?? 0;
      const completionTokens = chunk.usage.completion_tokens ?? 0;
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
      const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens;
      events.push({
        type: 'usage',
        usage: {
          promptTokens,
          completionTokens,
          totalTokens: chunk.usage.total_tokens ?? promptTokens + completionTokens,
          ...(typeof cached === 'number' ? { cachedTokens: cached } : {}),
          ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
        },
      });
    }
    return events;
  }

  /** Events due when the stream has ended; throws when it ended before the model finished. */
  end(): ModelEvent[] {
    if (this.finishReason === undefined) throw this.fail('the stream ended before the response was complete');
    return [...this.flushCalls(), { type: 'finish', reason: this.finishReason }];
  }

  private addFragment(fragment: ChatCompletionChunk.Choice.Delta.ToolCall, position: number): void {
    const index = typeof fragment.index === 'number' ? fragment.index : position;
    const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
    if (fragment.id) call.id = fragment.id;
    if (fragment.function?.name) call.name = fragment.function.name;
    if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    this.calls.set(index, call);
  }

  private flushCalls(): ModelEvent[] {
    const calls = [...this.calls.entries()].sort(([left], [right]) => left - right);
    this.calls.clear();
    return calls
      .filter(([, call]) => call.name !== '')
      .map(([, call]): ModelEvent => {
        const request: ToolCallRequest = {
          id: call.id || `call_${newId()}`,
          name: call.name,
          arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
        };
        return { type: 'tool-call', call: request };
      });
  }
}
