import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { completionsUrl, postChatCompletion, type ChatRequestTarget } from './chat-request.ts';
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
  /** Time limit for the response headers of each attempt (default 30000 ms); past it the attempt is retried. */
  firstByteTimeoutMs?: number;
  /**
   * Longest gap between two chunks of a streamed answer, from the headers on (default 60000 ms).
   * Past it, a call that streamed nothing yet is retried, and one that did fails.
   */
  idleTimeoutMs?: number;
  /**
   * Retries after a 429, a 5xx, a connection failure, a malformed chunk or a time limit above,
   * before anything was streamed (default 3).
   */
  maxRetries?: number;
  fetch?: typeof fetch;
  /** First backoff delay; later ones double (default 200 ms). */
  retryBaseMs?: number;
  /** Alias → model name at the provider, from the provider's `models` list. */
  aliases?: Record<string, string>;
}

// Retry-After beyond this is not worth waiting for inside one chat turn.
const MAX_RETRY_AFTER_MS = 20_000;

/** A ModelProvider for any OpenAI-compatible chat completions endpoint, streaming. */
export function createOpenAICompatibleProvider(options: OpenAICompatibleOptions): ModelProvider {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const settings: StreamSettings = {
    id: options.id,
    apiKey: options.apiKey,
    model: options.model,
    aliases: options.aliases ?? {},
    timeoutMs,
    firstByteTimeoutMs: Math.min(options.firstByteTimeoutMs ?? 30_000, timeoutMs),
    idleTimeoutMs: Math.min(options.idleTimeoutMs ?? 60_000, timeoutMs),
    maxRetries: options.maxRetries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
    target: { baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch },
    url: completionsUrl(options.baseUrl),
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
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  target: ChatRequestTarget;
  /** Where the calls go (the base URL's /chat/completions). */
  url: string;
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
  // One watchdog for the call's time limit and the attempt's first-byte and idle limits (see CallClock).
  const clock = new CallClock(settings, request.signal);
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
        const signal = clock.startAttempt();
        // A non-2xx answer rejects with an UpstreamStatusError (chat-request.ts); the event stream is
        // read by sseJsonChunks (see there why).
        const stream = await postChatCompletion(settings.target, settings.url, body, signal, request.headers);
        clock.started();
        if (!stream) throw fail('the response has no body');
        for await (const chunk of sseJsonChunks(stream)) {
          clock.active();
          for (const event of decoder.push(chunk as ChatCompletionChunk)) {
            yielded = true;
            yield event;
          }
        }
        // A body cut short by an abort is not a finished answer.
        if (signal.aborted) throw clock.ended ? stopped() : fail(clock.lapse as string);
        yield* decoder.end();
        finished = true;
        return;
      } catch (error) {
        if (clock.ended) throw stopped();
        // A watchdog that fired: no first byte in time, or a stream that stopped sending.
        const failure = clock.lapse
          ? { reason: clock.lapse, retryable: true, retryAfterMs: undefined }
          : describeFailure(error, undefined);
        if (yielded || !failure.retryable || attempt >= settings.maxRetries) {
          throw error instanceof AppError ? error : fail(failure.reason);
        }
        const backoff = settings.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        const delay = Math.min(failure.retryAfterMs ?? backoff, MAX_RETRY_AFTER_MS);
        // A wait that would outlast the call's time limit is not worth starting.
        if (delay >= clock.remainingMs()) throw fail(`${failure.reason}; no time left to retry`);
        yield { type: 'retry', reason: cleanReason(failure.reason, settings.apiKey) };
        await sleep(delay, clock.waiting()).catch(() => {
          throw stopped();
        });
      }
    }
  } finally {
    // Stops the HTTP request when the consumer leaves early (client gone, break, error). A finished
    // call has nothing to stop, and aborting would cost an exception object per call.
    clock.dispose(!finished);
  }
}

/**
 * The time limits of one call on one timer: the whole call (`timeoutMs`, retries included), the
 * response headers of each attempt (`firstByteTimeoutMs`) and the gap between two chunks of the
 * body (`idleTimeoutMs`, from the headers on). The timer is armed for the nearest limit and, when
 * it fires early (a chunk came since), re-armed for the rest: a chunk costs a Date.now(), not a
 * timer. An attempt limit that passes aborts the attempt only (`lapse` says why); the call's limit
 * or the caller's abort ends the call (`ended`).
 */
class CallClock {
  private controller = new AbortController();
  private readonly deadline: number;
  private attemptDue = Number.POSITIVE_INFINITY;
  private phase: 'headers' | 'body' | 'waiting' = 'waiting';
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  ended = false;
  /** Why the watchdog aborted the current attempt, if it did. */
  lapse: string | undefined;

  constructor(
    private readonly settings: StreamSettings,
    private readonly outer: AbortSignal,
  ) {
    this.deadline = Date.now() + settings.timeoutMs;
    if (outer.aborted) this.end();
    else outer.addEventListener('abort', this.end, { once: true });
  }

  /** The signal of a new attempt, waiting for its headers. */
  startAttempt(): AbortSignal {
    if (this.controller.signal.aborted && !this.ended) this.controller = new AbortController();
    this.lapse = undefined;
    this.phase = 'headers';
    this.last = Date.now();
    this.attemptDue = this.last + this.settings.firstByteTimeoutMs;
    this.rearm();
    return this.controller.signal;
  }

  started(): void {
    this.phase = 'body';
    this.active();
  }

  active(): void {
    this.last = Date.now();
    this.attemptDue = this.last + this.settings.idleTimeoutMs;
  }

  /** The signal to wait on between attempts (only the call's own limit runs). */
  waiting(): AbortSignal {
    this.phase = 'waiting';
    this.attemptDue = Number.POSITIVE_INFINITY;
    if (this.controller.signal.aborted && !this.ended) this.controller = new AbortController();
    return this.controller.signal;
  }

  remainingMs(): number {
    return this.deadline - Date.now();
  }

  dispose(abort: boolean): void {
    clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.end);
    if (abort) this.controller.abort();
  }

  private readonly end = (): void => {
    this.ended = true;
    this.controller.abort();
  };

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.check, Math.max(ms, 1));
  }

  // The attempt's limit can only come sooner when a new attempt starts.
  private rearm(): void {
    this.arm(Math.min(this.deadline, this.attemptDue) - Date.now());
  }

  private readonly check = (): void => {
    const now = Date.now();
    if (now >= this.deadline) return this.end();
    if (now >= this.attemptDue && this.phase !== 'waiting') {
      this.lapse =
        this.phase === 'headers'
          ? `no response within ${this.settings.firstByteTimeoutMs} ms`
          : `the stream stopped sending for ${this.settings.idleTimeoutMs} ms`;
      this.attemptDue = Number.POSITIVE_INFINITY;
      this.controller.abort();
    }
    this.arm(Math.min(this.deadline, this.attemptDue) - now);
  };
}
