// Locks shared by every instance: SET key token NX PX ttl to take, a compare-and-delete script to
// release, renewed while held so long work (a model turn) keeps it. Waiters of one instance queue
// in memory first, so only one of them at a time polls Redis.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sleep } from '../core/async.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { LocalLocks, type LockOptions, type Locks } from './locks.ts';
import { RELEASE_SCRIPT, RENEW_SCRIPT } from './redis-scripts.ts';

export interface RedisLocksOptions {
  prefix: string;
  logger: Logger;
  /** Time to live of a lock, in ms; renewed every third of it while held (default 5000: a lock of a dead instance is free within 5 s). */
  ttlMs?: number;
}

const unreachable = (): AppError =>
  new AppError('unavailable', 'the cluster coordination service (Redis) is unreachable');

export class RedisLocks implements Locks {
  private readonly local = new LocalLocks();
  private readonly held = new Set<Promise<unknown>>();
  private readonly ttlMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLocksOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
  }

  run<T>(key: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const running = this.local.run(key, () => this.runHeld(key, work, options));
    this.held.add(running);
    void running.catch(() => undefined).finally(() => this.held.delete(running));
    return running;
  }

  /** Waits for every lock held or awaited now to be released (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.held]);
  }

  private async runHeld<T>(key: string, work: () => Promise<T>, options: LockOptions): Promise<T> {
    const redisKey = `${this.options.prefix}lock:${key}`;
    // From the pool randomUUID keeps (randomBytes went to OpenSSL on every turn's lock).
    const token = randomUUID();
    await this.acquire(redisKey, token, options);
    const renewal = setInterval(
      () => {
        this.redis.eval(RENEW_SCRIPT, 1, redisKey, token, String(this.ttlMs)).then(
          (renewed) => {
            if (renewed !== 1) this.options.logger.warn({ lock: key }, 'a cluster lock expired while held');
          },
          (error: unknown) =>
            this.options.logger.warn(
              { lock: key, err: String(error) },
              'a cluster lock could not be renewed',
            ),
        );
      },
      Math.max(Math.floor(this.ttlMs / 3), 10),
    );
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.redis.eval(RELEASE_SCRIPT, 1, redisKey, token).catch((error: unknown) => {
        // It expires by itself within the time to live.
        this.options.logger.warn({ lock: key, err: String(error) }, 'a cluster lock could not be released');
      });
    }
  }

  private async acquire(redisKey: string, token: string, options: LockOptions): Promise<void> {
    const deadline = Date.now() + (options.waitMs ?? 30_000);
    let delay = 10;
    for (;;) {
      options.signal?.throwIfAborted();
      let taken: string | null;
      try {
        taken = await this.redis.set(redisKey, token, 'PX', this.ttlMs, 'NX');
      } catch {
        throw unreachable();
      }
      if (taken === 'OK') return;
      if (Date.now() >= deadline) {
        throw new AppError('unavailable', 'timed out waiting for another instance to finish with this item');
      }
      // Short waits first (a config write takes milliseconds), up to a fifth of a second.
      await sleep(Math.min(delay, Math.max(deadline - Date.now(), 0)), options.signal);
      delay = Math.min(delay * 2, 200);
    }
  }
}
