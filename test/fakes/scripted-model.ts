// A scripted, deterministic model behind an in-process fetch, for compaction and memory tests.
// Every request body is checked against the OpenAI chat format (roles, tool calls answered by
// their results, nothing dangling) and against the context window, counted with a fixed number of
// tokens per character. Summaries are extractive: every transcript line holding an identifier,
// under fixed headings. The flush turn writes those lines to memory with memory_write. Ordinary
// turns follow the user's words: "read <path>" calls the read tool; anything else is echoed.
import { SUMMARY_INSTRUCTIONS } from '../../src/turns/summariser.ts';
import { FLUSH_INSTRUCTIONS } from '../../src/turns/memory-flush.ts';
import { extractIdentifiers } from '../../src/turns/identifiers.ts';
import { completionJson, sseChunks, type ScriptedReply } from './fake-upstream-replies.ts';

export type RequestKind = 'turn' | 'summary' | 'flush';
export type SummaryFault = 'error500' | 'empty' | 'drop' | 'hang';

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ScriptedModel {
  fetch: typeof fetch;
  /** Every request body, oldest first, with what it was. */
  readonly requests: Array<{ kind: RequestKind; body: Record<string, unknown>; tokens: number }>;
  /** Format or window problems found in request bodies (must stay empty). */
  readonly violations: string[];
  count(kind: RequestKind): number;
  /** Flush turns begun (their first request; a turn that writes makes a second one). */
  flushTurns(): number;
  /** The next `times` summary requests fail this way. */
  failSummaries(fault: SummaryFault, times: number): void;
  /** The next `times` turn requests are refused as too long, whatever their size. */
  overflowNext(times: number): void;
  /** The next turn request streams `text` and then waits until its caller goes away. */
  stallAfter(text: string): void;
  /** The next `times` turn requests fail with a 500. */
  failTurns(times: number): void;
}

/** Tokens of a request as the fake counts them: a quarter per character, 4 per message, plus the tools. */
export function wireTokens(body: Record<string, unknown>): number {
  const messages = (body['messages'] ?? []) as WireMessage[];
  const tools = (body['tools'] ?? []) as Array<{ function: unknown }>;
  let total = tools.length > 0 ? Math.ceil(JSON.stringify(tools.map((tool) => tool.function)).length / 4) : 0;
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : '';
    const calls = (message.tool_calls ?? []).reduce(
      (sum, call) => sum + call.function.name.length + call.function.arguments.length,
      0,
    );
    total += Math.ceil((text.length + calls) / 4) + 4;
  }
  return total;
}

/** Problems of a chat completions body under strict OpenAI rules. */
export function validateBody(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return ['messages must be a non-empty array'];
  let open = new Set<string>();
  let seenNonSystem = false;
  for (const [index, message] of (messages as WireMessage[]).entries()) {
    const where = `messages[${index}]`;
    if (!['system', 'user', 'assistant', 'tool'].includes(message.role)) problems.push(`${where}: bad role`);
    if (message.role !== 'tool' && open.size > 0)
      problems.push(`${where}: tool calls ${[...open].join(',')} have no result`);
    if (message.role === 'tool') {
      if (!message.tool_call_id || !open.delete(message.tool_call_id))
        problems.push(`${where}: tool result ${String(message.tool_call_id)} answers no open call`);
      if (typeof message.content !== 'string') problems.push(`${where}: tool content must be text`);
    } else open = new Set();
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        if (!call.id || call.type !== 'function' || typeof call.function?.arguments !== 'string')
          problems.push(`${where}: malformed tool call`);
        open.add(call.id);
      }
      if (message.content === undefined && !message.tool_calls?.length)
        problems.push(`${where}: empty assistant message`);
    }
    if ((message.role === 'user' || message.role === 'system') && message.content === undefined)
      problems.push(`${where}: no content`);
    if (!seenNonSystem && message.role !== 'system') {
      seenNonSystem = true;
      if (message.role === 'tool') problems.push(`${where}: the context starts with a tool result`);
    }
  }
  if (open.size > 0) problems.push(`tool calls ${[...open].join(',')} have no result at the end`);
  return problems;
}

function kindOf(messages: WireMessage[]): RequestKind {
  const system = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  if (system === SUMMARY_INSTRUCTIONS) return 'summary';
  if (system === FLUSH_INSTRUCTIONS) return 'flush';
  return 'turn';
}

/** The extractive summary: every line of the request holding an identifier, once, under fixed headings. */
export function extractiveSummary(request: string, drop?: string): string {
  const lines: string[] = [];
  for (const line of request.split('\n')) {
    const trimmed = line.replace(/^(?:user|assistant|tool result|system): /, '').trim();
    if (extractIdentifiers(trimmed).length === 0 || lines.includes(trimmed)) continue;
    if (drop !== undefined && trimmed.includes(drop)) continue;
    lines.push(trimmed);
  }
  return [
    '## Goals',
    'Continue helping the user.',
    '## Facts and decisions',
    ...lines,
    '## Open questions',
    'none',
  ].join('\n');
}

function turnReply(messages: WireMessage[], callId: string): ScriptedReply {
  const last = messages.at(-1);
  if (last?.role === 'tool') return { text: `done: read ${String(last.content).length} characters` };
  const text = typeof last?.content === 'string' ? last.content : '';
  const read = /\bread (\S+)/.exec(text);
  if (read) return { toolCalls: [{ id: callId, name: 'read', arguments: { path: read[1] } }] };
  return { text: `noted: ${text.slice(0, 60)}` };
}

export function createScriptedModel(options: { window: number }): ScriptedModel {
  const requests: ScriptedModel['requests'] = [];
  const violations: string[] = [];
  const summaryFaults: SummaryFault[] = [];
  let overflows = 0;
  let stall: string | undefined;
  let turnFailures = 0;
  let calls = 0;
  const answer = (body: Record<string, unknown>, reply: ScriptedReply): Response => {
    const model = typeof body['model'] === 'string' ? body['model'] : 'scripted';
    if (body['stream'] === true)
      return new Response(sseChunks(model, reply, true).join(''), {
        headers: { 'content-type': 'text/event-stream' },
      });
    return Response.json(completionJson(model, reply));
  };
  const refuse = (status: number, message: string, code: string | null): Response =>
    Response.json({ error: { message, type: 'invalid_request_error', code } }, { status });
  const handle = async (
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Response> => {
    const messages = (body['messages'] ?? []) as WireMessage[];
    const kind = kindOf(messages);
    const tokens = wireTokens(body);
    requests.push({ kind, body, tokens });
    for (const problem of validateBody(body))
      violations.push(`${kind} request ${requests.length}: ${problem}`);
    if (tokens > options.window) {
      violations.push(
        `${kind} request ${requests.length}: ${tokens} tokens passes the window of ${options.window}`,
      );
      return refuse(
        400,
        `This model's maximum context length is ${options.window} tokens.`,
        'context_length_exceeded',
      );
    }
    if (kind === 'turn' && overflows > 0) {
      overflows -= 1;
      return refuse(
        400,
        `This model's maximum context length is ${options.window} tokens.`,
        'context_length_exceeded',
      );
    }
    const request = typeof messages[1]?.content === 'string' ? messages[1].content : '';
    if (kind === 'summary') {
      const fault = summaryFaults.shift();
      if (fault === 'error500') return refuse(500, 'summariser down', null);
      if (fault === 'empty') return answer(body, { text: '' });
      if (fault === 'hang')
        return new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        });
      const first = extractIdentifiers(request)[0];
      return answer(body, { text: extractiveSummary(request, fault === 'drop' ? first : undefined) });
    }
    if (kind === 'flush') {
      if (messages.at(-1)?.role === 'tool') return answer(body, { text: 'NO_REPLY' });
      const facts = extractiveSummary(request)
        .split('\n')
        .filter((line) => !line.startsWith('## ') && extractIdentifiers(line).length > 0);
      if (facts.length === 0) return answer(body, { text: 'NO_REPLY' });
      return answer(body, {
        toolCalls: [
          {
            id: 'call_flush',
            name: 'memory_write',
            arguments: { text: facts.map((line) => `- ${line}`).join('\n') },
          },
        ],
      });
    }
    if (turnFailures > 0) {
      turnFailures -= 1;
      return refuse(500, 'the model is down', null);
    }
    if (stall !== undefined) {
      const frames = sseChunks(
        typeof body['model'] === 'string' ? body['model'] : 'scripted',
        { text: stall },
        false,
      );
      stall = undefined;
      const encoder = new TextEncoder();
      // The role and text frames only: no finish, no [DONE], until the caller aborts.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const text = frames.filter(
            (chunk) => chunk.includes('"content"') && chunk.includes('"finish_reason":null'),
          );
          for (const chunk of text) controller.enqueue(encoder.encode(chunk));
          signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    }
    calls += 1;
    return answer(body, turnReply(messages, `call_${calls}`));
  };
  return {
    requests,
    violations,
    count: (kind) => requests.filter((request) => request.kind === kind).length,
    flushTurns: () =>
      requests.filter(
        (request) => request.kind === 'flush' && (request.body['messages'] as unknown[]).length === 2,
      ).length,
    failSummaries(fault, times) {
      for (let index = 0; index < times; index += 1) summaryFaults.push(fault);
    },
    overflowNext(times) {
      overflows += times;
    },
    stallAfter(text) {
      stall = text;
    },
    failTurns(times) {
      turnFailures += times;
    },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const text = typeof init?.body === 'string' ? init.body : await new Response(init?.body ?? null).text();
      void input;
      return handle(JSON.parse(text) as Record<string, unknown>, init?.signal ?? undefined);
    }) as typeof fetch,
  };
}
