// The store behind cacheGet / cacheSet / cacheDelete (RuleGo's types.Cache): in process in single
// mode, in Redis in clustered mode so that every instance sees the same values. Values keep their
// type (stored as JSON); TTLs are Go durations ("10s", "1h30m"), empty for none.

export interface RuleCache {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs: number | undefined): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every live key starting with `prefix`, with its value; the keys as given to set. */
  getByPrefix(prefix: string): Promise<Record<string, unknown>>;
  deleteByPrefix(prefix: string): Promise<void>;
}

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration ("300ms", "1.5h", "2h45m") in ms; empty: undefined (no expiry). Throws on anything else. */
export function parseTtl(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '0') return undefined;
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (const match of trimmed.matchAll(pattern)) {
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    end = (match.index ?? 0) + match[0].length;
  }
  if (end !== trimmed.length || end === 0) throw new Error(`time: invalid duration "${text}"`);
  return total <= 0 ? undefined : Math.max(1, Math.round(total));
}

interface Entry {
  value: unknown;
  expires: number | undefined;
}

/** Single mode: a map with lazy expiry, capped so a runaway chain cannot take the memory. */
export class MemoryRuleCache implements RuleCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 100_000) {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expires !== undefined && entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  get(key: string): Promise<unknown> {
    return Promise.resolve(this.live(key)?.value);
  }

  set(key: string, value: unknown, ttlMs: number | undefined): Promise<void> {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      for (const name of [...this.entries.keys()]) this.live(name);
      if (this.entries.size >= this.maxEntries) {
        return Promise.reject(new Error(`the cache is full (${this.maxEntries} keys)`));
      }
    }
    this.entries.set(key, { value, expires: ttlMs === undefined ? undefined : Date.now() + ttlMs });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  getByPrefix(prefix: string): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const key of [...this.entries.keys()]) {
      if (!key.startsWith(prefix)) continue;
      const entry = this.live(key);
      if (entry) out[key] = entry.value;
    }
    return Promise.resolve(out);
  }

  deleteByPrefix(prefix: string): Promise<void> {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
    return Promise.resolve();
  }
}

/** The Redis commands the clustered cache uses (an ioredis connection has them). */
export interface RedisCommands {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  psetex(key: string, ms: number, value: string): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  mget(...keys: string[]): Promise<Array<string | null>>;
  scan(
    cursor: string,
    match: 'MATCH',
    pattern: string,
    count: 'COUNT',
    size: number,
  ): Promise<[string, string[]]>;
}

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);

/** Clustered mode: one Redis key per entry under `<cluster prefix>rulecache:`, values as JSON. */
export class RedisRuleCache implements RuleCache {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix: string,
  ) {}

  private async keysWith(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(
        cursor,
        'MATCH',
        `${globEscape(this.prefix + prefix)}*`,
        'COUNT',
        500,
      );
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  async get(key: string): Promise<unknown> {
    const text = await this.redis.get(this.prefix + key);
    return text === null ? undefined : (JSON.parse(text) as unknown);
  }

  async set(key: string, value: unknown, ttlMs: number | undefined): Promise<void> {
    const text = JSON.stringify(value ?? null);
    if (ttlMs === undefined) await this.redis.set(this.prefix + key, text);
    else await this.redis.psetex(this.prefix + key, ttlMs, text);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async getByPrefix(prefix: string): Promise<Record<string, unknown>> {
    const keys = await this.keysWith(prefix);
    const out: Record<string, unknown> = {};
    if (keys.length === 0) return out;
    const values = await this.redis.mget(...keys);
    keys.forEach((key, index) => {
      const text = values[index];
      if (text !== null && text !== undefined)
        out[key.slice(this.prefix.length)] = JSON.parse(text) as unknown;
    });
    return out;
  }

  async deleteByPrefix(prefix: string): Promise<void> {
    const keys = await this.keysWith(prefix);
    for (let start = 0; start < keys.length; start += 500)
      await this.redis.del(...keys.slice(start, start + 500));
  }
}

/** The cache a node uses: services.ruleCache, or one process-wide map (RuleGo's default memory cache). */
const processCache = new MemoryRuleCache();
export function cacheOf(services: Record<string, unknown>): RuleCache {
  const cache = services['ruleCache'];
  return typeof cache === 'object' && cache !== null && 'getByPrefix' in cache
    ? (cache as RuleCache)
    : processCache;
}
