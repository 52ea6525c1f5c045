// The budget counters' contract, run against both implementations: in-process (one instance) and
// Redis (clustered, Lua). And the price table: aliases, per-model overrides, cached input.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import {
  LocalBudgetCounters,
  type BudgetCounters,
  type CounterEntry,
} from '../../src/usage/budget-counters.ts';
import { RedisBudgetCounters, RESERVATION_TTL_MS } from '../../src/usage/redis-budget-counters.ts';
import { costNanos, modelName, pricingOf } from '../../src/usage/pricing.ts';

const DAY = 24 * 60 * 60_000;

function entry(key: string, limitTokens: number, block = true): CounterEntry {
  return { key, limitTokens, limitNanos: -1, block, expiresAt: Date.now() + DAY };
}

function contract(name: string, make: () => BudgetCounters) {
  describe(`budget counters: ${name}`, () => {
    const unique = () => randomBytes(6).toString('hex');

    it('admits while spent + reserved is under the limit, then waits on calls in flight, then refuses', async () => {
      const counters = make();
      const budget = entry(unique(), 100);
      const now = Date.now();
      assert.equal(await counters.reserve([budget], 'a', { tokens: 60, nanos: 0 }, now), undefined);
      assert.equal(await counters.reserve([budget], 'b', { tokens: 60, nanos: 0 }, now), undefined);
      // 120 held: the third waits (not reached: the calls in flight may use less).
      assert.deepEqual(await counters.reserve([budget], 'c', { tokens: 60, nanos: 0 }, now), {
        index: 0,
        reached: false,
      });
      const [settled] = await counters.settle([budget], 'a', { tokens: 30, nanos: 0 });
      assert.deepEqual(settled, { before: { tokens: 0, nanos: 0 }, after: { tokens: 30, nanos: 0 } });
      // 30 spent + 60 held = 90 < 100.
      assert.equal(await counters.reserve([budget], 'c', { tokens: 60, nanos: 0 }, now), undefined);
      await counters.settle([budget], 'b', { tokens: 50, nanos: 0 });
      await counters.settle([budget], 'c', { tokens: 50, nanos: 0 });
      assert.deepEqual(await counters.read([budget]), [
        { spent: { tokens: 130, nanos: 0 }, reserved: { tokens: 0, nanos: 0 } },
      ]);
      assert.deepEqual(await counters.reserve([budget], 'd', { tokens: 1, nanos: 0 }, now), {
        index: 0,
        reached: true,
      });
    });

    it('reserves on every blocking budget or on none, and never refuses for a warn budget', async () => {
      const counters = make();
      const open = entry(unique(), 1000);
      const full = entry(unique(), 10);
      const warn = entry(unique(), 1, false);
      await counters.settle([full], 'x', { tokens: 10, nanos: 0 });
      assert.deepEqual(await counters.reserve([open, warn, full], 'y', { tokens: 5, nanos: 0 }, Date.now()), {
        index: 2,
        reached: true,
      });
      assert.deepEqual((await counters.read([open]))[0]?.reserved, { tokens: 0, nanos: 0 });
      await counters.settle([warn], 'z', { tokens: 5, nanos: 0 });
      assert.equal(await counters.reserve([open, warn], 'w', { tokens: 5, nanos: 0 }, Date.now()), undefined);
      assert.deepEqual((await counters.read([warn]))[0]?.reserved, { tokens: 0, nanos: 0 });
    });

    it('counts cost limits in nano-dollars', async () => {
      const counters = make();
      const budget: CounterEntry = { ...entry(unique(), -1), limitNanos: 1_000_000_000 };
      await counters.settle([budget], 'a', { tokens: 5, nanos: 999_999_999 });
      assert.equal(await counters.reserve([budget], 'b', { tokens: 5, nanos: 50 }, Date.now()), undefined);
      await counters.settle([budget], 'b', { tokens: 5, nanos: 1 });
      assert.equal(
        (await counters.reserve([budget], 'c', { tokens: 5, nanos: 50 }, Date.now()))?.reached,
        true,
      );
    });

    it('is seeded once, from what the database recorded', async () => {
      const counters = make();
      const budget = entry(unique(), 100);
      await counters.seed(budget, { tokens: 40, nanos: 7 });
      await counters.seed(budget, { tokens: 40, nanos: 7 });
      assert.deepEqual((await counters.read([budget]))[0]?.spent, { tokens: 40, nanos: 7 });
    });

    it('tells a key the first time only, until it expires', async () => {
      const counters = make();
      const key = unique();
      assert.equal(await counters.firstTime(key, Date.now() + 60_000), true);
      assert.equal(await counters.firstTime(key, Date.now() + 60_000), false);
      assert.equal(await counters.firstTime(unique(), Date.now() + 60_000), true);
    });
  });
}

contract('in-process', () => new LocalBudgetCounters());

describe('budget counters: Redis only', () => {
  let redis: Redis;
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  before(() => {
    redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  contract('Redis', () => new RedisBudgetCounters(redis, prefix));

  it('releases the reservation of a call whose instance died, once it is past its time', async () => {
    const counters = new RedisBudgetCounters(redis, prefix);
    const budget = entry(`dead-${randomBytes(4).toString('hex')}`, 100);
    const now = Date.now();
    assert.equal(await counters.reserve([budget], 'lost', { tokens: 100, nanos: 0 }, now), undefined);
    assert.equal(
      (await counters.reserve([budget], 'next', { tokens: 10, nanos: 0 }, now + 1000))?.reached,
      false,
    );
    assert.equal(
      await counters.reserve([budget], 'next', { tokens: 10, nanos: 0 }, now + RESERVATION_TTL_MS + 1),
      undefined,
    );
    assert.deepEqual((await counters.read([budget]))[0]?.reserved, { tokens: 10, nanos: 0 });
  });
});

describe('pricing', () => {
  const entry = {
    base_url: 'http://127.0.0.1:9/v1',
    model: 'small',
    models: [
      { name: 'large-2026', alias: 'large', pricing: { input: 2.5, output: 10 } },
      { name: 'tiny', alias: 'cheap' },
    ],
    pricing: { input: 0.15, cached_input: 0.075, output: 0.6 },
  };

  it('names the model at the provider: the default for none, the name for an alias', () => {
    assert.equal(modelName(entry, ''), 'small');
    assert.equal(modelName(entry, 'large'), 'large-2026');
    assert.equal(modelName(entry, 'other'), 'other');
    assert.equal(modelName(undefined, ''), 'demo');
  });

  it("takes a model's own pricing over the provider's", () => {
    assert.deepEqual(pricingOf(entry, 'large-2026'), { input: 2.5, output: 10 });
    assert.deepEqual(pricingOf(entry, 'tiny'), entry.pricing);
    assert.equal(pricingOf(undefined, 'demo'), undefined);
  });

  it('prices cached input at its own rate (the input rate when none is set), in nano-dollars', () => {
    const tokens = { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100, reasoningTokens: 50 };
    // 600 × 0.15 + 400 × 0.075 + 100 × 0.6 = 90 + 30 + 60 = 180 micro-dollars.
    assert.equal(costNanos(tokens, entry.pricing), 180_000);
    assert.equal(costNanos(tokens, { input: 2.5, output: 10 }), 1000 * 2500 + 100 * 10_000);
    assert.equal(costNanos(tokens, undefined), 0);
  });
});
