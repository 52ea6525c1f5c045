// Requests per minute per key (an api account, a chat user): fixed one-minute windows, counted in
// this process or, clustered, in Redis (INCR + PEXPIRE in one script) so the limit is the cluster's.
import type { Redis } from 'ioredis';

export interface RequestLimiter {
  /** Counts one request; 0 when allowed, else the seconds until the window ends. */
  hit(key: string, limit: number): Promise<number>;
}

const WINDOW_MS = 60_000;

function waitOf(window: number, now: number): number {
  return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
}

export class LocalRequestLimiter implements RequestLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, limit: number): Promise<number> {
    const now = this.now();
    const window = Math.floor(now / WINDOW_MS);
    if (this.windows.size > 10_000)
      for (const [seen, entry] of this.windows) if (entry.window !== window) this.windows.delete(seen);
    let entry = this.windows.get(key);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return Promise.resolve(entry.count <= limit ? 0 : waitOf(window, now));
  }
}

const COUNT = `
local count = redis.call('incr', KEYS[1])
if count == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end
return count
`;

export class RedisRequestLimiter implements RequestLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    redis.defineCommand('rateCount', { numberOfKeys: 1, lua: COUNT });
  }

  async hit(key: string, limit: number): Promise<number> {
    const now = this.now();
    const window = Math.floor(now / WINDOW_MS);
    const counter = this.redis as unknown as { rateCount(key: string, ttl: number): Promise<number> };
    const count = await counter.rateCount(`${this.prefix}rate:${key}:${window}`, WINDOW_MS * 2);
    return count <= limit ? 0 : waitOf(window, now);
  }
}
