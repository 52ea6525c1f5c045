// Budget counters shared by clustered instances, in Redis: each step is one Lua script, so the
// check and the reservation of a call are atomic across instances. A counter is a hash (spent st/sc,
// reserved rt/rc, each call's reservation r:<call>) and a sorted set of reservation expiries: a
// reservation whose instance died mid-call is released after RESERVATION_TTL_MS.
import type { Redis } from 'ioredis';
import { sleep } from '../core/async.ts';
import type { Amount, BudgetCounters, CounterEntry, CounterState, Refusal } from './budget-counters.ts';

/** Longer than any model call may take (provider time limits are at most an hour). */
export const RESERVATION_TTL_MS = 65 * 60_000;

const RESERVE = `
local now = tonumber(ARGV[1])
local call = ARGV[2]
local ttl = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local nanos = tonumber(ARGV[5])
local n = #KEYS / 2
for i = 1, n do
  local base = 6 + (i - 1) * 4
  if ARGV[base + 2] == '1' then
    local h, z = KEYS[2 * i - 1], KEYS[2 * i]
    for _, id in ipairs(redis.call('zrangebyscore', z, '-inf', now)) do
      local held = redis.call('hget', h, 'r:' .. id)
      if held then
        -- 0 - x, not -x: Redis refuses "-0" as an integer.
        local t, c = string.match(held, '(-?%d+):(-?%d+)')
        redis.call('hincrby', h, 'rt', 0 - tonumber(t))
        redis.call('hincrby', h, 'rc', 0 - tonumber(c))
        redis.call('hdel', h, 'r:' .. id)
      end
      redis.call('zrem', z, id)
    end
    local v = redis.call('hmget', h, 'st', 'sc', 'rt', 'rc')
    local st, sc = tonumber(v[1]) or 0, tonumber(v[2]) or 0
    local rt, rc = tonumber(v[3]) or 0, tonumber(v[4]) or 0
    local lt, lc = tonumber(ARGV[base]), tonumber(ARGV[base + 1])
    if (lt >= 0 and st >= lt) or (lc >= 0 and sc >= lc) then return i end
    if (lt >= 0 and st + rt >= lt) or (lc >= 0 and sc + rc >= lc) then return -i end
  end
end
for i = 1, n do
  local base = 6 + (i - 1) * 4
  if ARGV[base + 2] == '1' then
    local h, z = KEYS[2 * i - 1], KEYS[2 * i]
    redis.call('hincrby', h, 'rt', tokens)
    redis.call('hincrby', h, 'rc', nanos)
    redis.call('hset', h, 'r:' .. call, tokens .. ':' .. nanos)
    redis.call('zadd', z, now + ttl, call)
    redis.call('pexpireat', h, ARGV[base + 3])
    redis.call('pexpireat', z, ARGV[base + 3])
  end
end
return 0
`;

const SETTLE = `
local call = ARGV[1]
local tokens = tonumber(ARGV[2])
local nanos = tonumber(ARGV[3])
local out = {}
for i = 1, #KEYS / 2 do
  local h, z = KEYS[2 * i - 1], KEYS[2 * i]
  local held = redis.call('hget', h, 'r:' .. call)
  if held then
    local t, c = string.match(held, '(-?%d+):(-?%d+)')
    redis.call('hincrby', h, 'rt', 0 - tonumber(t))
    redis.call('hincrby', h, 'rc', 0 - tonumber(c))
    redis.call('hdel', h, 'r:' .. call)
    redis.call('zrem', z, call)
  end
  local v = redis.call('hmget', h, 'st', 'sc')
  table.insert(out, tonumber(v[1]) or 0)
  table.insert(out, tonumber(v[2]) or 0)
  table.insert(out, redis.call('hincrby', h, 'st', tokens))
  table.insert(out, redis.call('hincrby', h, 'sc', nanos))
  redis.call('pexpireat', h, ARGV[3 + i])
end
return out
`;

const SEED = `
if redis.call('hsetnx', KEYS[1], 'seeded', 1) == 1 then
  redis.call('hincrby', KEYS[1], 'st', ARGV[1])
  redis.call('hincrby', KEYS[1], 'sc', ARGV[2])
  redis.call('pexpireat', KEYS[1], ARGV[3])
end
return 0
`;

interface BudgetCommands {
  budgetReserve(keyCount: number, ...args: Array<string | number>): Promise<number>;
  budgetSettle(keyCount: number, ...args: Array<string | number>): Promise<number[]>;
  budgetSeed(keyCount: number, ...args: Array<string | number>): Promise<number>;
}

export class RedisBudgetCounters implements BudgetCounters {
  private readonly commands: BudgetCommands;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    // EVALSHA with a fallback to EVAL, by ioredis.
    redis.defineCommand('budgetReserve', { lua: RESERVE });
    redis.defineCommand('budgetSettle', { lua: SETTLE });
    redis.defineCommand('budgetSeed', { lua: SEED });
    this.commands = redis as unknown as BudgetCommands;
  }

  private keys(entries: CounterEntry[]): string[] {
    return entries.flatMap((entry) => [
      `${this.prefix}budget:${entry.key}`,
      `${this.prefix}budget:${entry.key}:exp`,
    ]);
  }

  async reserve(
    entries: CounterEntry[],
    callId: string,
    amount: Amount,
    now: number,
  ): Promise<Refusal | undefined> {
    const args = entries.flatMap((entry) => [
      entry.limitTokens,
      entry.limitNanos,
      entry.block ? '1' : '0',
      entry.expiresAt,
    ]);
    const keys = this.keys(entries);
    const result = await this.commands.budgetReserve(
      keys.length,
      ...keys,
      now,
      callId,
      RESERVATION_TTL_MS,
      amount.tokens,
      amount.nanos,
      ...args,
    );
    const answer = Number(result);
    if (answer === 0) return undefined;
    return { index: Math.abs(answer) - 1, reached: answer > 0 };
  }

  /** Other instances settle too: this waits the time given (with jitter), then the caller looks again. */
  settled(ms: number): Promise<void> {
    return sleep(ms * (0.5 + Math.random()));
  }

  async settle(
    entries: CounterEntry[],
    callId: string,
    actual: Amount,
  ): Promise<Array<{ before: Amount; after: Amount }>> {
    const keys = this.keys(entries);
    const values = await this.commands.budgetSettle(
      keys.length,
      ...keys,
      callId,
      actual.tokens,
      actual.nanos,
      ...entries.map((entry) => entry.expiresAt),
    );
    return entries.map((_entry, index) => {
      const [bt, bc, at, ac] = values.slice(index * 4, index * 4 + 4).map(Number);
      return { before: { tokens: bt ?? 0, nanos: bc ?? 0 }, after: { tokens: at ?? 0, nanos: ac ?? 0 } };
    });
  }

  async read(entries: CounterEntry[]): Promise<CounterState[]> {
    const pipeline = this.redis.pipeline();
    for (const entry of entries) pipeline.hmget(`${this.prefix}budget:${entry.key}`, 'st', 'sc', 'rt', 'rc');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      const [st, sc, rt, rc] = (value as Array<string | null>).map((field) => Number(field ?? 0));
      return { spent: { tokens: st ?? 0, nanos: sc ?? 0 }, reserved: { tokens: rt ?? 0, nanos: rc ?? 0 } };
    });
  }

  async seed(entry: CounterEntry, spent: Amount): Promise<void> {
    await this.commands.budgetSeed(
      1,
      `${this.prefix}budget:${entry.key}`,
      spent.tokens,
      spent.nanos,
      entry.expiresAt,
    );
  }

  async firstTime(key: string, expiresAt: number): Promise<boolean> {
    const answer = await this.redis.set(`${this.prefix}budget-notice:${key}`, '1', 'PXAT', expiresAt, 'NX');
    return answer === 'OK';
  }
}
