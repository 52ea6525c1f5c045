/**
 * One scripted answer of the fake upstream: text, or tool calls (arguments as JSON text or an
 * object), optionally after some text (`lead`, as models say "Let me look." before calling).
 */
export type ScriptedReply =
  | { text: string }
  | {
      toolCalls: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
      lead?: string;
    };

const CREATED = 1_700_000_000;

interface Call {
  id: string;
  name: string;
  arguments: string;
}

function callsOf(reply: ScriptedReply): Call[] | undefined {
  if (!('toolCalls' in reply)) return undefined;
  return reply.toolCalls.map((call, index) => ({
    id: call.id ?? `call_fake_${index}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** The usage block of a reply, as OpenAI reports it (details only when given). */
export interface UsageReport {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export function usageOf(reply: ScriptedReply): UsageReport {
  const completion = Math.ceil(('text' in reply ? reply.text : JSON.stringify(reply.toolCalls)).length / 4);
  return { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion };
}

function frame(model: string, choices: unknown[], extra: Record<string, unknown> = {}): string {
  const chunk = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices,
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The SSE frames of a streamed reply: role, content or tool-call fragments, finish, usage, [DONE]. */
export function sseChunks(
  model: string,
  reply: ScriptedReply,
  includeUsage: boolean,
  usage: UsageReport = usageOf(reply),
): string[] {
  const frames = [
    frame(model, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
  ];
  const calls = callsOf(reply);
  const text = 'text' in reply ? reply.text : 'lead' in reply ? (reply.lead ?? '') : '';
  for (const piece of text.match(/\S+\s*|\s+/gu) ?? []) {
    frames.push(frame(model, [{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  if (calls) {
    calls.forEach((call, index) => {
      frames.push(
        frame(model, [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
              ],
            },
            finish_reason: null,
          },
        ]),
      );
      // Arguments arrive in pieces, as real providers send them.
      const middle = Math.ceil(call.arguments.length / 2);
      for (const piece of [call.arguments.slice(0, middle), call.arguments.slice(middle)]) {
        if (piece === '') continue;
        frames.push(
          frame(model, [
            {
              index: 0,
              delta: { tool_calls: [{ index, function: { arguments: piece } }] },
              finish_reason: null,
            },
          ]),
        );
      }
    });
  }
  frames.push(frame(model, [{ index: 0, delta: {}, finish_reason: calls ? 'tool_calls' : 'stop' }]));
  if (includeUsage) frames.push(frame(model, [], { usage }));
  frames.push('data: [DONE]\n\n');
  return frames;
}

/** The body of a non-streamed reply. */
export function completionJson(
  model: string,
  reply: ScriptedReply,
  usage: UsageReport = usageOf(reply),
): Record<string, unknown> {
  const calls = callsOf(reply);
  const message = calls
    ? {
        role: 'assistant',
        content: 'lead' in reply && reply.lead ? reply.lead : null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      }
    : { role: 'assistant', content: 'text' in reply ? reply.text : '' };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, finish_reason: calls ? 'tool_calls' : 'stop' }],
    usage,
  };
}

export function errorJson(message: string, type: string): Record<string, unknown> {
  return { error: { message, type, code: null } };
}
