// A fault-injecting fake model: an OpenAI-compatible chat completions server on 127.0.0.1 that
// answers most calls and breaks the others in every way a real provider does, for the chaos tests
// (test/chaos/) and benchmarks. It answers streamed and non-streamed calls alike, with the SSE frames
// and JSON bodies of fake-upstream-replies.ts.
//
// API
//   const model = await startFaultModel({ rate: 0.2, seed: 7 });   // 20% of calls faulted, seeded
//   const model = await startFaultModel({ script: ['error500', 'ok', 'stall'] }); // call by call
//   config: { models: model.modelsConfig({ idle_timeout_ms: 500 }) }   // provider "faulty"
//
//   Which fault a call gets: the next entry of the script (options.script, then model.script(...)),
//   else, with probability `rate`, a kind drawn from `kinds` by the seeded generator, else 'ok'.
//   The same seed and the same order of calls give the same schedule.
//
//   Fault kinds (FaultKind):
//     error500         HTTP 500 with an OpenAI error body.
//     error429         HTTP 429 without Retry-After.
//     error429-retry   HTTP 429 with `Retry-After: <retryAfterSeconds>` (default 1).
//     malformed        200, a role chunk, then a chunk that is not JSON, then the end of the body.
//                      (non-streamed: a body that is not JSON).
//     disconnect       200, `partialText` streamed, then the socket is destroyed mid-stream
//                      (non-streamed: half of the JSON body, then the socket is destroyed).
//     stall            200, `partialText` streamed, then nothing more and the response never ends
//                      (non-streamed: half of the body, then nothing); held until close().
//     no-headers       the request is read and nothing is ever sent, not even the status line;
//                      held until close().
//
//   Figures: `calls` (chat completion requests), `ok` (answered normally), `injected` (a count per
//   kind), `faults` (their sum), `log` (each call's number, kind and whether it streamed), `held`
//   (responses stalled or never started still open). `reset()` zeroes them (the script is kept).
//   `setRate(rate)` changes the rate; `script(...kinds)` appends to the per-call list. `pause()`
//   holds every request that arrives (`waiting` counts them) until `resume()` answers them.
//
//   Answers: `reply(body)` gives an answer's text (default: "Answer to: <last user message>", so a
//   test can tell which message an answer belongs to); `latencyMs` delays every call's first byte.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { completionJson, errorJson, sseChunks } from './fake-upstream-replies.ts';

export const FAULT_KINDS = [
  'error500',
  'error429',
  'error429-retry',
  'malformed',
  'disconnect',
  'stall',
  'no-headers',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type CallPlan = FaultKind | 'ok';

export interface FaultModelOptions {
  /** Fraction of calls (0..1) faulted when the script is empty (default 0). */
  rate?: number;
  /** Seed of the random schedule (default 1). */
  seed?: number;
  /** Kinds the random schedule draws from, equally likely (default: every kind). */
  kinds?: readonly FaultKind[];
  /** Plans of the first calls, in order; later calls follow the rate. */
  script?: CallPlan[];
  /** Retry-After of error429-retry, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** Text streamed before a disconnect or a stall (default "Partial answer "). */
  partialText?: string;
  /** The text of a normal answer (default: "Answer to: " and the last user message). */
  reply?: (body: Record<string, unknown>) => string;
  /** Delay before any call is answered (or faulted), in ms. */
  latencyMs?: number;
}

export interface FaultModel {
  /** Base URL for an OpenAI client, ending in /v1. */
  readonly url: string;
  readonly calls: number;
  readonly ok: number;
  readonly faults: number;
  readonly injected: Readonly<Record<FaultKind, number>>;
  readonly log: ReadonlyArray<{ call: number; plan: CallPlan; stream: boolean; asked: string }>;
  /** Responses stalled or never started that are still open. */
  readonly held: number;
  /** Requests read while paused, waiting for resume() (not yet counted in `calls`). */
  readonly waiting: number;
  /** Holds every request that arrives from now on until resume() (a model slow on cue). */
  pause(): void;
  /** Answers the held requests (each as its plan says) and stops holding. */
  resume(): void;
  setRate(rate: number): void;
  script(...plans: CallPlan[]): void;
  /** Zeroes the figures and the log. */
  reset(): void;
  /**
   * The `models` section of a config whose default provider "faulty" is this server; `provider`
   * adds or overrides fields (timeout_ms, first_byte_timeout_ms, idle_timeout_ms, failover...).
   */
  modelsConfig(provider?: Record<string, unknown>): {
    default_provider: string;
    providers: Record<string, Record<string, unknown>>;
  };
  close(): Promise<void>;
}

/** A small seeded generator (mulberry32): the same seed gives the same fault schedule. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    const content = message.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) {
      return content
        .map((part) =>
          (part as { type?: string; text?: string }).type === 'text' ? (part as { text: string }).text : '',
        )
        .join('');
    }
  }
  return '';
}

export async function startFaultModel(options: FaultModelOptions = {}): Promise<FaultModel> {
  let rate = options.rate ?? 0;
  const random = seededRandom(options.seed ?? 1);
  const kinds = options.kinds ?? FAULT_KINDS;
  const scripted: CallPlan[] = [...(options.script ?? [])];
  const partialText = options.partialText ?? 'Partial answer ';
  const replyOf = options.reply ?? ((body) => `Answer to: ${lastUserText(body)}`);
  const zero = (): Record<FaultKind, number> =>
    Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  let injected = zero();
  let calls = 0;
  let ok = 0;
  let log: Array<{ call: number; plan: CallPlan; stream: boolean; asked: string }> = [];
  const held = new Set<ServerResponse>();
  let paused = false;
  let gated: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const plan = (): CallPlan => {
    const next = scripted.shift();
    if (next) return next;
    // Two draws per call whatever the outcome, so the schedule does not depend on the kinds list.
    const faulted = random() < rate;
    const pick = kinds[Math.floor(random() * kinds.length)] ?? 'error500';
    return faulted ? pick : 'ok';
  };

  const hold = (response: ServerResponse): void => {
    held.add(response);
    response.once('close', () => held.delete(response));
  };

  const cut = (response: ServerResponse): void => {
    setTimeout(() => response.socket?.destroy(), 20);
  };

  const answer = (body: Record<string, unknown>, response: ServerResponse): void => {
    calls += 1;
    const stream = body.stream === true;
    const current = plan();
    log.push({ call: calls, plan: current, stream, asked: lastUserText(body) });
    if (current === 'ok') ok += 1;
    else injected[current] += 1;
    const model = typeof body.model === 'string' ? body.model : 'fault-model';
    const includeUsage =
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    switch (current) {
      case 'ok': {
        const reply = { text: replyOf(body) };
        if (!stream) return void writeJson(response, 200, completionJson(model, reply));
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        return void response.end(sseChunks(model, reply, includeUsage).join(''));
      }
      case 'error500':
        return void writeJson(response, 500, errorJson('the fault model failed', 'server_error'));
      case 'error429':
        return void writeJson(response, 429, errorJson('rate limited by the fault model', 'rate_limit'));
      case 'error429-retry':
        return void writeJson(response, 429, errorJson('rate limited by the fault model', 'rate_limit'), {
          'retry-after': String(options.retryAfterSeconds ?? 1),
        });
      case 'malformed':
        if (!stream) return void writeJson(response, 200, '{"id":"chatcmpl-fault","choices":[{"mess');
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(sseChunks(model, { text: '' }, false)[0]);
        return void response.end('data: {"choices":[{"index":0,"delta":{"content":"hel\n\n');
      case 'disconnect':
      case 'stall': {
        if (!stream) {
          const text = JSON.stringify(completionJson(model, { text: partialText }));
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          response.write(text.slice(0, Math.floor(text.length / 2)));
        } else {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const frames = sseChunks(model, { text: partialText }, false);
          // The role chunk and the text, without the finish chunk and [DONE].
          response.write(frames.slice(0, -2).join(''));
        }
        if (current === 'disconnect') cut(response);
        else hold(response);
        return;
      }
      case 'no-headers':
        hold(response);
        return;
    }
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      return void writeJson(response, 200, {
        object: 'list',
        data: [{ id: 'fault-model', object: 'model' }],
      });
    }
    if (request.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      return void writeJson(response, 404, errorJson('not found', 'invalid_request_error'));
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return void writeJson(response, 400, errorJson('body is not JSON', 'invalid_request_error'));
      }
      if (paused) return void gated.push(() => answer(body, response));
      if (options.latencyMs) setTimeout(() => answer(body, response), options.latencyMs);
      else answer(body, response);
    });
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/v1`;

  return {
    url,
    get calls() {
      return calls;
    },
    get ok() {
      return ok;
    },
    get faults() {
      return Object.values(injected).reduce((sum, count) => sum + count, 0);
    },
    get injected() {
      return injected;
    },
    get log() {
      return log;
    },
    get held() {
      return held.size;
    },
    get waiting() {
      return gated.length;
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      const waiting = gated;
      gated = [];
      for (const go of waiting) go();
    },
    setRate(next) {
      rate = next;
    },
    script(...plans) {
      scripted.push(...plans);
    },
    reset() {
      injected = zero();
      calls = 0;
      ok = 0;
      log = [];
    },
    modelsConfig(provider = {}) {
      return {
        default_provider: 'faulty',
        providers: { faulty: { base_url: url, model: 'fault-model', ...provider } },
      };
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function writeJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
