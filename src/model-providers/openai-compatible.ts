import type OpenAI from 'openai';
import type * as OpenAISdkModule from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { nodeHttpFetch } from './node-http-fetch.ts';
import { sleep } from '../core/async.ts';
import { AppError } from '../core/errors.ts';
import { ChunkDecoder } from './chunk-decoder.ts';
import { sseJsonChunks } from './sse-decoder.ts';
import { toOpenAIMessages, toOpenAIParams, toOpenAITools } from './openai-messages.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from './types.ts';
import { cleanReason, describeFailure } from './upstream-failure.ts';

export interface OpenAICompatibleOptions {
  id: string;
  baseUrl: string;
  apiKey?: string;
  /** Model used when a request names none. */
  model: string;
  /** Time limit of one whole call, retries and streaming included (default 120000 ms). */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a connection failure, before anything was streamed (default 3). */
  maxRetries?: number;
  fetch?: typeof fetch;
  /** First backoff delay; later ones double (default 200 ms). */
  retryBaseMs?: number;
  /** Alias → model name at the provider, from the provider's `models` list. */
  aliases?: Record<string, string>;
}

// Retry-After beyond this is not worth waiting for inside one chat turn.
const MAX_RETRY_AFTER_MS = 20_000;

// The SDK is loaded with the first call, so a thread that never calls a provider (the main thread
// when model workers are on, a server on the demo model) never pays for it.
let sdk: typeof OpenAISdkModule | undefined;
const loadSdk = async (): Promise<typeof OpenAISdkModule> => (sdk ??= await import('openai'));

/** A ModelProvider for any OpenAI-compatible chat completions endpoint, streaming. */
export function createOpenAICompatibleProvider(options: OpenAICompatibleOptions): ModelProvider {
  const timeoutMs = options.timeoutMs ?? 120_000;
  let client: Promise<OpenAI> | undefined;
  const getClient = (): Promise<OpenAI> =>
    (client ??= loadSdk().then(
      ({ default: OpenAISdk }) =>
        new OpenAISdk({
          baseURL: options.baseUrl,
          // Explicit values everywhere, so the SDK never falls back to OPENAI_* environment variables.
          apiKey: options.apiKey || 'unused',
          organization: null,
          project: null,
          ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
          maxRetries: 0,
          timeout: timeoutMs,
          logLevel: 'off',
          fetch: options.fetch ?? nodeHttpFetch,
        }),
    ));
  const settings: StreamSettings = {
    id: options.id,
    apiKey: options.apiKey,
    model: options.model,
    aliases: options.aliases ?? {},
    timeoutMs,
    maxRetries: options.maxRetries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
    client: getClient,
  };
  return {
    id: options.id,
    demo: false,
    stream: (request) => streamCompletion(settings, request),
  };
}

interface StreamSettings {
  id: string;
  apiKey: string | undefined;
  model: string;
  aliases: Record<string, string>;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  client: () => Promise<OpenAI>;
}

async function* streamCompletion(
  settings: StreamSettings,
  request: ModelRequest,
): AsyncGenerator<ModelEvent> {
  const fail = (reason: string): AppError =>
    new AppError(
      'upstream',
      `model provider "${settings.id}" failed: ${cleanReason(reason, settings.apiKey)}`,
    );
  // One controller for the caller's abort and the time limit (AbortSignal.any costs more per call).
  const controller = new AbortController();
  const signal = controller.signal;
  const stop = (): void => controller.abort();
  const timer = setTimeout(stop, settings.timeoutMs);
  if (request.signal.aborted) stop();
  else request.signal.addEventListener('abort', stop, { once: true });
  // A cancelled call ends with the caller's own reason; a call past its time limit with a timeout.
  const stopped = (): unknown =>
    request.signal.aborted
      ? request.signal.reason
      : new AppError('timeout', `model provider "${settings.id}" timed out after ${settings.timeoutMs} ms`);
  const requested = request.model || settings.model;
  const withTools = request.tools !== undefined && request.tools.length > 0;
  const body = {
    model: settings.aliases[requested] ?? requested,
    messages: toOpenAIMessages(request.messages),
    ...(withTools && request.tools ? { tools: toOpenAITools(request.tools) } : {}),
    ...toOpenAIParams(request.params, withTools),
    stream: true as const,
    stream_options: { include_usage: true },
  };
  let yielded = false;
  let finished = false;
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const decoder = new ChunkDecoder(fail);
        const client = await settings.client();
        // The SDK sends the request and turns a non-2xx answer into an APIError; the event stream
        // is read by sseJsonChunks (see there why).
        const response = await client.chat.completions
          .create(body, { signal, ...(request.headers ? { headers: request.headers } : {}) })
          .asResponse();
        if (!response.body) throw fail('the response has no body');
        for await (const chunk of sseJsonChunks(response.body)) {
          for (const event of decoder.push(chunk as ChatCompletionChunk)) {
            yielded = true;
            yield event;
          }
        }
        // A body cut short by an abort is not a finished answer.
        if (signal.aborted) throw stopped();
        yield* decoder.end();
        finished = true;
        return;
      } catch (error) {
        if (signal.aborted) throw stopped();
        const failure = describeFailure(error, sdk);
        if (yielded || !failure.retryable || attempt >= settings.maxRetries) {
          throw error instanceof AppError ? error : fail(failure.reason);
        }
        const backoff = settings.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        const delay = Math.min(failure.retryAfterMs ?? backoff, MAX_RETRY_AFTER_MS);
        yield { type: 'retry', reason: cleanReason(failure.reason, settings.apiKey) };
        await sleep(delay, signal).catch(() => {
          throw stopped();
        });
      }
    }
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', stop);
    // Stops the HTTP request when the consumer leaves early (client gone, break, error). A finished
    // call has nothing to stop, and aborting would cost an exception object per call.
    if (!finished) stop();
  }
}
