// Outbound sends retried on the platform's transient failures: a 429 (after its Retry-After when it
// gives one), a 5xx, a connection that could not be made or broke. Bounded: a few attempts, delays
// growing to a cap, never past the caller's signal. Anything else (a 4xx, a bad token) fails at
// once. A send that still fails is thrown to the caller, which reports it (never dropped silently).
// A retried send after a broken connection may reach the chat twice (the platform may have taken
// the first): at least once, since a reply never sent is the worse failure.
import { sleep } from '../core/async.ts';
import { PlatformError } from './platform-http.ts';

export interface SendRetryOptions {
  /** Attempts in all (default 4). */
  attempts?: number;
  /** First backoff delay, doubled at each retry (default 500 ms). */
  baseDelayMs?: number;
  /** Longest delay between attempts, a Retry-After included (default 10 s); a longer Retry-After fails. */
  maxDelayMs?: number;
  signal?: AbortSignal | undefined;
  onRetry?: (attempt: number, delayMs: number, error: PlatformError) => void;
}

/** True for a failure worth sending again: 429, 5xx, or no answer at all. */
export function isTransientSendError(error: unknown): error is PlatformError {
  if (!(error instanceof PlatformError)) return false;
  if (error.unreachable) return true;
  const status = error.httpStatus;
  return status === 429 || (status !== undefined && status >= 500 && status <= 599) || error.code === 429;
}

export async function withSendRetry<T>(send: () => Promise<T>, options: SendRetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 4);
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 10_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= attempts || !isTransientSendError(error) || options.signal?.aborted) throw error;
      const asked = error.retryAfterMs;
      if (asked !== undefined && asked > cap) throw error;
      const delay = asked ?? Math.min(cap, base * 2 ** (attempt - 1));
      options.onRetry?.(attempt, delay, error);
      await sleep(delay, options.signal);
    }
  }
}
