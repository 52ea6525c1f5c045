// Reads a streamed chat completion (with X-Stream-Protocol: agui) as typed events: text deltas and
// the tool calls the server runs, as they happen.
import type { ChatCompletionChunk, ChatErrorFrame } from '../chat/chat.schema.ts';
import type { ApiClient } from './client.ts';
import { CliError } from './errors.ts';
import { SseFrames } from './sse-frames.ts';

export type ChatEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-start'; id: string; name: string; arguments: string }
  | { type: 'tool-call-result'; id: string; name: string; content: string };

/** A frame of the stream: a chunk, or the error that ends a failed turn. */
type Chunk = ChatCompletionChunk | ChatErrorFrame;

function* eventsOf(chunk: Chunk): Generator<ChatEvent> {
  if ('error' in chunk) throw new CliError(`the turn failed: ${chunk.error}`);
  const delta = chunk.choices?.[0]?.delta;
  for (const call of delta?.tool_calls ?? []) {
    if (call.type === 'TOOL_CALL_START')
      yield {
        type: 'tool-call-start',
        id: call.toolCallId,
        name: call.toolCallName,
        arguments: call.arguments,
      };
    else if (call.type === 'TOOL_CALL_RESULT')
      yield { type: 'tool-call-result', id: call.toolCallId, name: call.toolCallName, content: call.content };
  }
  if (delta?.content) yield { type: 'text-delta', text: delta.content };
}

export async function* readChatStream(response: Response): AsyncGenerator<ChatEvent> {
  if (!response.body) return;
  const frames = new SseFrames();
  for await (const bytes of response.body) {
    for (const data of frames.push(bytes as Uint8Array)) {
      if (data === '[DONE]') continue;
      let chunk: Chunk;
      try {
        chunk = JSON.parse(data) as Chunk;
      } catch {
        continue;
      }
      yield* eventsOf(chunk);
    }
  }
}

/** One line describing a tool call, for the terminal. */
export function describeToolCall(event: ChatEvent, width = 160): string {
  const cut = (text: string): string => {
    const flat = text.replace(/\s+/g, ' ').trim();
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  };
  if (event.type === 'tool-call-start') return `⚙ ${event.name}(${cut(event.arguments)})`;
  if (event.type === 'tool-call-result') return `  ↳ ${cut(event.content) || '(no output)'}`;
  return event.text;
}

/** Starts a streamed turn with the tool-call extension; the caller reads the events. */
export function streamTurn(
  api: ApiClient,
  turn: { agent: string; session?: string | undefined; content: string },
  signal?: AbortSignal,
): Promise<Response> {
  return api.send('POST', '/chat/completions', {
    headers: { 'x-stream-protocol': 'agui' },
    body: {
      model: turn.agent,
      stream: true,
      ...(turn.session ? { sessionId: turn.session } : {}),
      messages: [{ role: 'user', content: turn.content }],
    },
    ...(signal ? { signal } : {}),
  });
}
