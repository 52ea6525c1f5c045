// A $1 daily budget shared by three real instances (PostgreSQL + Redis): 200 concurrent turns spread
// over them stop with at most one reservation of overspend, and once it is spent no instance makes
// another model call; every instance reports the same spent amount and the 429 names the reset.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { formatLocal, periodOf } from '../../src/usage/periods.ts';
import { api, clusterSection, deployment, type Deployment, type Instance } from './instances.ts';

/** 1000 input tokens at $10/M and 500 output tokens at $30/M. */
const CALL_COST = 0.025;
/** What a call holds while in flight: its input (generously estimated) and 1024 output tokens at $30/M. */
const MAX_RESERVATION = 0.0315;

describe('clustered mode: one budget across three instances', () => {
  let upstream: FakeUpstream;
  let cluster: Deployment;
  let instances: Instance[];

  before(async () => {
    upstream = await startFakeUpstream({
      reply: 'Noted.',
      latencyMs: 10,
      usage: () => ({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }),
    });
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\nmodels:\n  default_provider: fake\n  providers:\n    fake:\n` +
        `      base_url: ${upstream.url}\n      model: m\n      pricing: { input: 10, output: 30 }\n` +
        `budgets:\n  - { id: daily, scope: {}, period: day, cost: 1 }\n${clusterSection(prefix)}`,
    );
    instances = await Promise.all(['a', 'b', 'c'].map((name) => cluster.start(name)));
  });
  after(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it('200 concurrent turns overspend by at most one reservation; none calls the model after the stop', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        api(instances[index % 3] as Instance, 'POST', '/api/v1/chat/completions', {
          model: 'main',
          messages: [{ role: 'user', content: `question ${index}` }],
        }),
      ),
    );
    const ok = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429).length;
    assert.equal(
      ok + refused,
      200,
      JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 429)),
    );
    assert.equal(upstream.requestCount, ok, 'a model call for each answered turn only');
    assert.ok(refused > 0);

    const spent: number[] = [];
    for (const instance of instances) {
      const status = await api(instance, 'GET', '/api/v1/budgets/daily');
      assert.equal(status.status, 200, JSON.stringify(status.json));
      spent.push(status.json.spent.cost);
      assert.equal(status.json.reached, true);
      assert.deepEqual(status.json.reserved, { tokens: 0, cost: 0 });
    }
    assert.equal(new Set(spent).size, 1, `one shared counter: ${spent.join(', ')}`);
    const total = spent[0] as number;
    assert.ok(Math.abs(total - ok * CALL_COST) < 1e-9, `spent ${total} for ${ok} calls`);
    assert.ok(total >= 1, `the budget was used up: ${total}`);
    assert.ok(total <= 1 + MAX_RESERVATION, `overspent by more than one reservation: ${total}`);

    const resetsAt = formatLocal(periodOf('day', Date.now()).end);
    const calls = upstream.requestCount;
    for (const instance of instances) {
      const answer = await api(instance, 'POST', '/api/v1/chat/completions', {
        model: 'main',
        messages: [{ role: 'user', content: 'one more' }],
        stream: true,
      });
      assert.equal(answer.status, 429);
      assert.deepEqual(answer.json, { error: `budget daily reached, resets at ${resetsAt}` });
    }
    assert.equal(upstream.requestCount, calls, 'no model call after the stop');

    // Every call was recorded once, whichever instance made it.
    const usage = await api(instances[1] as Instance, 'GET', '/api/v1/usage?groupBy=agent');
    assert.equal(usage.status, 200, JSON.stringify(usage.json));
    assert.equal(usage.json.totals.calls, ok);
    assert.equal(usage.json.totals.inputTokens, upstream.reported.promptTokens);
    assert.ok(Math.abs(usage.json.totals.cost - total) < 1e-9);
  });
});
