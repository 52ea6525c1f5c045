// What keeps every turn ending and no session stuck: a time limit per turn, a bound on the turns
// waiting for one session, and a wind-down bound after a turn's signal aborts, past which the
// session's lock is released whatever the turn's work is still doing (a tool or a store call that
// ignores its signal must not hold the session for ever).
import type { Locks } from '../cluster/locks.ts';
import { AppError } from '../core/errors.ts';

export interface TurnLimits {
  /** Time limit of one turn, waiting for the session included, in ms (agents.turn_timeout_ms). */
  timeoutMs(): number;
  /** Turns of one session waiting or running at most; one more is refused (agents.max_queued_turns). */
  maxQueued(): number;
}

export const DEFAULT_TURN_LIMITS: TurnLimits = {
  timeoutMs: () => 10 * 60_000,
  maxQueued: () => 16,
};

/** How long a turn whose signal aborted may take to wind down before it is given up on. */
export const WIND_DOWN_MS = 1000;

export function turnTimedOut(timeoutMs: number): AppError {
  return new AppError('timeout', `the turn did not finish within ${timeoutMs} ms`);
}

/** True when a turn's signal aborted because its time limit passed (not a stop by the client). */
export function isTurnTimeout(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return signal.aborted && reason instanceof AppError && reason.kind === 'timeout';
}

/** A signal that aborts with `parent`, or with a timeout error after `timeoutMs`; dispose when done. */
export function withTimeLimit(
  parent: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const follow = (): void => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  const timer = setTimeout(() => controller.abort(turnTimedOut(timeoutMs)), timeoutMs);
  return {
    signal: controller.signal,
    controller,
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', follow);
    },
  };
}

/**
 * Settles as `work` does, or rejects with the signal's reason `graceMs()` after the signal aborted,
 * whichever comes first. `work` is not stopped (it has the signal); it is only no longer waited for.
 */
export function settleWithin<T>(work: Promise<T>, signal: AbortSignal, graceMs: () => number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => reject(signal.reason), graceMs());
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Turns waiting for or holding each session's lock, by session key. */
export type SessionQueues = Map<string, number>;

/**
 * Runs `work` holding the session's lock. Waiting ends when `signal` aborts, and the lock is
 * released at most WIND_DOWN_MS after it aborts, whatever `work` is still doing. A session with
 * `max` turns already waiting or running refuses one more (429).
 */
export async function lockedTurn<T>(
  locks: Locks,
  queues: SessionQueues,
  max: number,
  key: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  const queued = queues.get(key) ?? 0;
  if (queued >= max) {
    throw new AppError(
      'rate-limited',
      `this conversation already has ${max} messages waiting for an answer; send again once they are answered`,
    );
  }
  queues.set(key, queued + 1);
  let entered = false;
  const held = (): Promise<T> => {
    entered = true;
    signal.throwIfAborted();
    return settleWithin(work(), signal, () => WIND_DOWN_MS);
  };
  try {
    return await settleWithin(locks.run(`session:${key}`, held, { signal }), signal, () =>
      entered ? WIND_DOWN_MS : 0,
    );
  } finally {
    const left = (queues.get(key) ?? 1) - 1;
    if (left > 0) queues.set(key, left);
    else queues.delete(key);
  }
}
