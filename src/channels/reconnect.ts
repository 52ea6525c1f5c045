// The one reconnect loop of every long-connection account: connect, and when the connection ends
// or fails, wait (exponential back-off with full jitter, honouring a platform's retry-after) and
// connect again, until the account is stopped. Each state change is reported for the API.
import { sleep } from '../core/async.ts';
import { errorMessage } from '../core/errors.ts';
import type { AccountStatus, ConnectionLink } from './types.ts';

export interface BackoffOptions {
  /** First wait after a failure, in ms (default 1000); doubles per failure up to maxMs. */
  baseMs?: number;
  /** Longest wait, in ms (default 60000). */
  maxMs?: number;
  /** Longest retry-after honoured, in ms (default one hour). */
  maxRetryAfterMs?: number;
  /** Random source in [0, 1), replaceable in tests. */
  random?: () => number;
}

/** An error may say how long the platform asked us to wait (Telegram's retry_after, HTTP 429). */
export interface RetryAfterHint {
  retryAfterMs?: number;
}

/** The wait before attempt `failures` + 1: a random time up to the capped exponential, never below retry-after. */
export function backoffDelay(failures: number, options: BackoffOptions, retryAfterMs?: number): number {
  const base = options.baseMs ?? 1000;
  const max = options.maxMs ?? 60_000;
  const ceiling = Math.min(base * 2 ** Math.min(Math.max(failures - 1, 0), 20), max);
  // Full jitter, but at least half the ceiling, so a flapping platform is not hammered.
  const jittered = ceiling / 2 + (options.random ?? Math.random)() * (ceiling / 2);
  if (retryAfterMs === undefined) return Math.round(jittered);
  return Math.round(Math.min(Math.max(retryAfterMs, jittered), options.maxRetryAfterMs ?? 3_600_000));
}

export interface KeepConnectedOptions extends BackoffOptions {
  signal: AbortSignal;
  connect(link: ConnectionLink): Promise<void>;
  deliver: ConnectionLink['deliver'];
  record?: ConnectionLink['record'];
  onStatus(status: AccountStatus): void;
  onRetry?(failures: number, delayMs: number, error: string): void;
}

/** Runs until the signal aborts. Never throws. */
export async function keepConnected(options: KeepConnectedOptions): Promise<void> {
  const { signal } = options;
  let failures = 0;
  const status = (state: AccountStatus['state'], error?: string): void =>
    options.onStatus({ state, ...(error === undefined ? {} : { error }), since: new Date().toISOString() });
  while (!signal.aborted) {
    status('connecting');
    let wasConnected = false;
    let failure: string | undefined;
    let retryAfterMs: number | undefined;
    try {
      await options.connect({
        signal,
        deliver: options.deliver,
        ...(options.record ? { record: options.record } : {}),
        connected: () => {
          if (signal.aborted) return;
          wasConnected = true;
          failures = 0;
          status('connected');
        },
      });
      failure = 'the platform closed the connection';
    } catch (error) {
      failure = errorMessage(error);
      const hint = (error as RetryAfterHint | undefined)?.retryAfterMs;
      if (typeof hint === 'number' && Number.isFinite(hint) && hint >= 0) retryAfterMs = hint;
    }
    if (signal.aborted) break;
    // A connection that was up counts as the first failure again: a platform restart reconnects fast.
    failures = wasConnected ? 1 : failures + 1;
    status('error', failure);
    const delayMs = backoffDelay(failures, options, retryAfterMs);
    options.onRetry?.(failures, delayMs, failure);
    await sleep(delayMs, signal).catch(() => undefined);
  }
}
