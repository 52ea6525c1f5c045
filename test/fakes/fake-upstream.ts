import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sseChunks, completionJson, errorJson, usageOf } from './fake-upstream-replies.ts';
import type { ScriptedReply, UsageReport } from './fake-upstream-replies.ts';

export type { ScriptedReply } from './fake-upstream-replies.ts';

/**
 * ok: answers (streamed or not) with the next scripted reply, else the fixed text.
 * error500 / error429: fails with that status (429 carries Retry-After: 0).
 * hang: accepts the request and never answers.  malformed: streams a broken SSE chunk.
 * disconnect: streams a role chunk and one text chunk, then destroys the socket.
 * usage-disconnect: streams a text chunk and its usage, then destroys the socket (a failed call that was billed).
 */
export type FakeUpstreamMode =
  'ok' | 'error500' | 'error429' | 'hang' | 'malformed' | 'disconnect' | 'usage-disconnect';

/** The usage the fake reported, summed over every reply that carried one. */
export interface ReportedUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface FakeUpstreamOptions {
  mode?: FakeUpstreamMode;
  /** Text of the fixed reply (default "Hello from the fake upstream."). */
  reply?: string;
  /** Replies used in order, one per successful request, before falling back to `reply`. */
  script?: ScriptedReply[];
  /** Message of the error500 / error429 bodies (to check that callers scrub what upstreams echo). */
  errorMessage?: string;
  /** Delay before answering, to imitate a real model's latency. */
  latencyMs?: number;
  /**
   * Pause between the frames of a streamed reply, as a model generating text: each piece then
   * reaches the service on its own (by default a reply is written at once, and the service's model
   * worker joins pieces of text that arrive together).
   */
  frameGapMs?: number;
  /** How many request bodies to keep (default 1000); all are counted. */
  captureLimit?: number;
  /** The usage a reply reports (default: 10 prompt tokens, a token per 4 characters of output). */
  usage?: (reply: ScriptedReply, body: Record<string, unknown>) => UsageReport;
}

export interface FakeUpstream {
  /** Base URL for an OpenAI client, ending in /v1. */
  readonly url: string;
  /** Request bodies of chat completion calls, oldest first. */
  readonly requests: Array<Record<string, unknown>>;
  /** Headers of the last chat completion call. */
  readonly lastHeaders: IncomingHttpHeaders | undefined;
  readonly requestCount: number;
  /** Responses whose client went away before they ended. */
  readonly clientAborts: number;
  /** What the fake reported in usage blocks, summed. */
  readonly reported: ReportedUsage;
  setMode(mode: FakeUpstreamMode): void;
  /** Uses `mode` for the next `times` requests, then goes back to the current mode. */
  failNext(mode: FakeUpstreamMode, times: number): void;
  /** Adds replies to the script. */
  script(...replies: ScriptedReply[]): void;
  /**
   * The `models` section of a config whose default provider "fake" is this upstream; `provider`
   * adds or overrides fields of that provider (api_key, timeout_ms, model).
   */
  modelsConfig(provider?: Record<string, unknown>): {
    default_provider: string;
    providers: Record<string, Record<string, unknown>>;
  };
  /** Resolves at the next client abort (or at once if `clientAborts` already exceeds `seen`). */
  waitForClientAbort(seen?: number): Promise<void>;
  close(): Promise<void>;
}

/** A fault-injecting OpenAI-compatible chat completions server on 127.0.0.1, for tests and benchmarks. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  let mode: FakeUpstreamMode = options.mode ?? 'ok';
  const oneOff: FakeUpstreamMode[] = [];
  const scripted: ScriptedReply[] = [...(options.script ?? [])];
  const reply = options.reply ?? 'Hello from the fake upstream.';
  const captureLimit = options.captureLimit ?? 1000;
  const requests: Array<Record<string, unknown>> = [];
  let lastHeaders: IncomingHttpHeaders | undefined;
  let requestCount = 0;
  let clientAborts = 0;
  let abortWaiters: Array<() => void> = [];
  // Responses the fake cut off itself (disconnect mode), which are not client aborts.
  const closedByUs = new WeakSet<ServerResponse>();
  const reported: ReportedUsage = {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
  };
  const report = (usage: UsageReport): UsageReport => {
    reported.calls += 1;
    reported.promptTokens += usage.prompt_tokens;
    reported.completionTokens += usage.completion_tokens;
    reported.cachedTokens += usage.prompt_tokens_details?.cached_tokens ?? 0;
    reported.reasoningTokens += usage.completion_tokens_details?.reasoning_tokens ?? 0;
    return usage;
  };
  const usageFor = (reply: ScriptedReply, body: Record<string, unknown>): UsageReport =>
    options.usage ? options.usage(reply, body) : usageOf(reply);

  const answer = (body: Record<string, unknown>, response: ServerResponse): void => {
    const current = oneOff.shift() ?? mode;
    const stream = body.stream === true;
    const includeUsage =
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    const model = typeof body.model === 'string' ? body.model : 'fake-model';
    switch (current) {
      case 'ok': {
        const next = scripted.shift() ?? { text: reply };
        if (!stream)
          return void writeJson(response, 200, completionJson(model, next, report(usageFor(next, body))));
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const usage = usageFor(next, body);
        if (includeUsage) report(usage);
        const frames = sseChunks(model, next, includeUsage, usage);
        if (!options.frameGapMs) return void response.end(frames.join(''));
        const gap = options.frameGapMs;
        const writeNext = (index: number): void => {
          if (response.destroyed) return;
          if (index === frames.length - 1) return void response.end(frames[index]);
          response.write(frames[index]);
          setTimeout(() => writeNext(index + 1), gap);
        };
        return writeNext(0);
      }
      case 'usage-disconnect': {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const partial = { text: 'Partial answer' };
        const [role, text] = sseChunks(model, partial, false);
        const usage = report(usageFor(partial, body));
        response.write(
          `${role}${text}data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage })}\n\n`,
        );
        setTimeout(() => {
          closedByUs.add(response);
          response.socket?.destroy();
        }, 20);
        return;
      }
      case 'error500':
        return void writeJson(
          response,
          500,
          errorJson(options.errorMessage ?? 'the fake upstream failed', 'server_error'),
        );
      case 'error429':
        return void writeJson(
          response,
          429,
          errorJson(options.errorMessage ?? 'rate limited by the fake upstream', 'rate_limit'),
          {
            'retry-after': '0',
          },
        );
      case 'hang':
        return;
      case 'malformed':
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(sseChunks(model, { text: '' }, false)[0]);
        return void response.end('data: {"choices":[{"index":0,"delta":{"content":"hel\n\n');
      case 'disconnect': {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const [role, text] = sseChunks(model, { text: 'Partial answer' }, false);
        response.write(`${role}${text}`);
        setTimeout(() => {
          closedByUs.add(response);
          response.socket?.destroy();
        }, 20);
        return;
      }
    }
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      return void writeJson(response, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model' }] });
    }
    if (request.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      return void writeJson(response, 404, errorJson('not found', 'invalid_request_error'));
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requestCount += 1;
      lastHeaders = request.headers;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return void writeJson(response, 400, errorJson('body is not JSON', 'invalid_request_error'));
      }
      if (requests.length >= captureLimit) requests.shift();
      requests.push(body);
      response.once('close', () => {
        if (response.writableFinished || closedByUs.has(response)) return;
        clientAborts += 1;
        const waiters = abortWaiters;
        abortWaiters = [];
        for (const wake of waiters) wake();
      });
      if (options.latencyMs) setTimeout(() => answer(body, response), options.latencyMs);
      else answer(body, response);
    });
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get lastHeaders() {
      return lastHeaders;
    },
    get requestCount() {
      return requestCount;
    },
    get clientAborts() {
      return clientAborts;
    },
    reported,
    setMode(next) {
      mode = next;
    },
    failNext(next, times) {
      for (let index = 0; index < times; index += 1) oneOff.push(next);
    },
    script(...replies) {
      scripted.push(...replies);
    },
    modelsConfig(provider = {}) {
      const fake = { base_url: `http://127.0.0.1:${port}/v1`, model: 'fake-model', ...provider };
      return { default_provider: 'fake', providers: { fake } };
    },
    waitForClientAbort(seen = clientAborts) {
      if (clientAborts > seen) return Promise.resolve();
      return new Promise((resolve) => abortWaiters.push(resolve));
    },
    close() {
      server.closeAllConnections();
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
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
