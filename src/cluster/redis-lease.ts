// Leases in Redis: the key `<prefix>lease:<key>` holds {instance, token} with a time to live,
// taken with SET NX PX and renewed by its holder every few seconds. A holder that dies stops
// renewing; the key expires and a waiting instance takes it. The holder's status sits beside it.
import type { Redis } from 'ioredis';
import { sleep } from '../core/async.ts';
import { randomToken } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { AcquireOptions, ConnectionLease, Holder, HolderStatus, LeaseGrant } from './lease.ts';
import { RELEASE_SCRIPT, RENEW_SCRIPT } from './redis-scripts.ts';

export interface LeaseTimings {
  /** Time to live of a lease, in ms (default 10000). */
  ttlMs?: number;
  /** How often the holder renews, in ms (default 3000). */
  renewMs?: number;
  /** How often a waiting instance tries to take it, in ms (default 2000). */
  retryMs?: number;
}

export interface RedisLeaseOptions extends LeaseTimings {
  prefix: string;
  instanceId: string;
  logger: Logger;
}

function parseHolder(value: string | null, status: string | null): Holder | undefined {
  if (value === null) return undefined;
  try {
    const { instance } = JSON.parse(value) as { instance?: unknown };
    if (typeof instance !== 'string') return undefined;
    const parsed = status === null ? undefined : (JSON.parse(status) as HolderStatus);
    return { instance, status: parsed };
  } catch {
    return undefined;
  }
}

export class RedisLease implements ConnectionLease {
  private readonly grants = new Set<LeaseGrant>();
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLeaseOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.renewMs = options.renewMs ?? 3_000;
    this.retryMs = options.retryMs ?? 2_000;
  }

  get instanceId(): string {
    return this.options.instanceId;
  }

  /** Releases every lease this instance holds (graceful shutdown). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.grants].map((grant) => grant.release()));
  }

  async acquire(key: string, options: AcquireOptions): Promise<LeaseGrant | undefined> {
    const leaseKey = `${this.options.prefix}lease:${key}`;
    const statusKey = `${this.options.prefix}lease-status:${key}`;
    const value = JSON.stringify({ instance: this.options.instanceId, token: randomToken(16) });
    while (!options.signal.aborted) {
      try {
        if ((await this.redis.set(leaseKey, value, 'PX', this.ttlMs, 'NX')) === 'OK') {
          return this.grant(key, leaseKey, statusKey, value);
        }
        const [holder, status] = await this.redis.mget(leaseKey, statusKey);
        const found = parseHolder(holder ?? null, status ?? null);
        if (found) options.onHeldElsewhere?.(found);
      } catch (error) {
        this.options.logger.warn({ lease: key, err: String(error) }, 'cannot reach Redis to take a lease');
      }
      await sleep(this.retryMs, options.signal).catch(() => undefined);
    }
    return undefined;
  }

  private grant(key: string, leaseKey: string, statusKey: string, value: string): LeaseGrant {
    const lost = new AbortController();
    let status: string | undefined;
    let lastRenewed = Date.now();
    let released = false;
    const writeStatus = (): void => {
      if (status === undefined || lost.signal.aborted) return;
      this.redis.set(statusKey, status, 'PX', this.ttlMs * 2).catch(() => undefined);
    };
    const renew = async (): Promise<void> => {
      try {
        const renewed = await this.redis.eval(RENEW_SCRIPT, 1, leaseKey, value, String(this.ttlMs));
        if (renewed === 1) {
          lastRenewed = Date.now();
          writeStatus();
          return;
        }
        lose(new Error('the lease was taken by another instance'));
      } catch (error) {
        // Redis away for longer than the time to live: another instance may hold it by now.
        if (Date.now() - lastRenewed >= this.ttlMs) lose(new Error(`the lease expired: ${String(error)}`));
      }
    };
    const timer = setInterval(() => void renew(), this.renewMs);
    const lose = (reason: Error): void => {
      if (lost.signal.aborted) return;
      clearInterval(timer);
      this.options.logger.warn({ lease: key, err: reason.message }, 'lease lost');
      lost.abort(reason);
    };
    const grant: LeaseGrant = {
      lost: lost.signal,
      report: (next) => {
        status = JSON.stringify(next);
        writeStatus();
      },
      release: async () => {
        if (released) return;
        released = true;
        this.grants.delete(grant);
        clearInterval(timer);
        const held = !lost.signal.aborted;
        lost.abort(new Error('the lease was released'));
        if (!held) return;
        await this.redis
          .multi()
          .eval(RELEASE_SCRIPT, 1, leaseKey, value)
          .del(statusKey)
          .exec()
          .catch(() => undefined);
      },
    };
    this.grants.add(grant);
    return grant;
  }
}
