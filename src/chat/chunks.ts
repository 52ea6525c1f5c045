// Run events to Chat Completions chunks: the one mapping of the stream's wire format.
import { randomUUID } from 'node:crypto';
import type { TurnEvent } from '../turns/turn-events.ts';
import type { ToolCallRequest, Usage } from '../model-providers/types.ts';
import type { ChatCompletionChunk, ChunkDelta, UsageBody } from './chat.schema.ts';

export interface CompletionIds {
  id: string;
  created: number;
  model: string;
}

export function completionIds(model: string, now = Date.now()): CompletionIds {
  return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(now / 1000), model };
}

export function usageBody(usage: Usage | undefined): UsageBody {
  return {
    prompt_tokens: usage?.promptTokens ?? 0,
    completion_tokens: usage?.completionTokens ?? 0,
    total_tokens: usage?.totalTokens ?? 0,
  };
}

export function chunk(
  ids: CompletionIds,
  delta: ChunkDelta,
  finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
): ChatCompletionChunk {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

export function usageChunk(ids: CompletionIds, usage: Usage | undefined): ChatCompletionChunk {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [],
    usage: usageBody(usage),
  };
}

/** The AG-UI message id of a tool call's result: derived from the (unique) call id. */
export function toolResultMessageId(toolCallId: string): string {
  return `result-${toolCallId}`;
}

/** Client tool calls as an assistant message's `tool_calls`. */
export function toolCallsField(calls: ToolCallRequest[]) {
  return calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
}

/** Client tool calls streamed as OpenAI streams them: id, type and name first, then the arguments. */
export function toolCallChunks(ids: CompletionIds, calls: ToolCallRequest[]) {
  return calls.flatMap((call, index) => [
    chunk(ids, {
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    }),
    chunk(ids, { tool_calls: [{ index, function: { arguments: call.arguments } }] }),
  ]);
}

/** The chunk for a turn event, or undefined when the event is not shown as a chunk of its own. */
export function eventChunk(ids: CompletionIds, event: TurnEvent, agui: boolean) {
  switch (event.type) {
    case 'text-delta':
      return event.text === '' ? undefined : chunk(ids, { content: event.text });
    case 'tool-call-start':
      if (!agui) return undefined;
      return chunk(ids, {
        tool_calls: [
          {
            type: 'TOOL_CALL_START',
            toolCallId: event.toolCallId,
            toolCallName: event.toolCallName,
            arguments: event.arguments,
            toolType: event.toolType,
          },
        ],
      });
    case 'tool-call-result':
      if (!agui) return undefined;
      return chunk(ids, {
        tool_calls: [
          {
            type: 'TOOL_CALL_RESULT',
            // AG-UI's TOOL_CALL_RESULT names the tool message it creates.
            messageId: toolResultMessageId(event.toolCallId),
            role: 'tool',
            toolCallId: event.toolCallId,
            toolCallName: event.toolCallName,
            content: event.content,
            toolType: event.toolType,
          },
        ],
      });
    case 'usage':
    case 'error':
    case 'done':
      return undefined;
  }
}

/**
 * A turn as the stream's chunks: the assistant role first, then one chunk per shown event; the turn's
 * end adds the client tool calls, the finish reason, the usage when asked, and `[DONE]`. A failed
 * turn throws its error, which the SSE writer sends as the wire's error frame.
 */
export async function* chatChunks(
  events: AsyncIterable<TurnEvent>,
  ids: CompletionIds,
  options: { agui: boolean; includeUsage: boolean },
): AsyncGenerator<ChatChunk> {
  yield chunk(ids, { role: 'assistant', content: '' });
  for await (const event of events) {
    if (event.type === 'error') throw event.error;
    if (event.type === 'done') {
      yield* toolCallChunks(ids, event.toolCalls ?? []);
      yield chunk(ids, {}, event.toolCalls ? 'tool_calls' : 'stop');
      if (options.includeUsage) yield usageChunk(ids, event.usage);
      yield '[DONE]';
      return;
    }
    const frame = eventChunk(ids, event, options.agui);
    if (frame) yield frame;
  }
}

/** One frame of the stream: a chunk, or the closing `[DONE]`. */
export type ChatChunk = ChatCompletionChunk | '[DONE]';
