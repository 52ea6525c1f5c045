// Budgets on one instance: the REST resource, enforcement before every model call with a
// reservation (200 concurrent turns overspend by at most one reservation, none is made after the
// stop), the 429 on the chat endpoint (streamed or not), a failed cron run, the 80% warning (log,
// metric hook, a chat), and the api account's rate limit.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { reattributed, type Attribution } from '../../src/model-providers/caller.ts';
import type { BudgetEvent } from '../../src/usage/budgets.ts';
import { formatLocal, periodOf } from '../../src/usage/periods.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';
const PARTNER_KEY = 'pk-partner-0123456789abcdef';
/** 1000 input tokens at $10/M and 500 output tokens at $30/M. */
const CALL_COST = 0.025;
/** What a call holds while in flight: its input (generously estimated) and 1024 output tokens at $30/M. */
const MAX_RESERVATION = 0.0315;

describe('budgets', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let t: TestApp;
  const logs: string[] = [];
  const events: BudgetEvent[] = [];

  before(async () => {
    upstream = await startFakeUpstream({
      latencyMs: 5,
      usage: () => ({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }),
    });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
    const log = (object: object, message: string): void =>
      void logs.push(`${message} ${JSON.stringify(object)}`);
    t = await createTestApp({
      config: {
        models: upstream.modelsConfig({ pricing: { input: 10, output: 30 } }),
        channels: {
          api: { accounts: { partner: { api_key: PARTNER_KEY } } },
          telegram: { enabled: true, accounts: { bot1: { app_secret: TOKEN, api_base: tg.url } } },
        },
        rate_limits: { accounts: { partner: 2 } },
      },
      services: { logger: { info: log, warn: log } },
    });
    t.services.usage.budgets.onEvent((event) => void events.push(event));
  });
  after(async () => {
    await t?.close();
    await tg?.close();
    await upstream?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url: `/api/v1${url}`, ...(payload === undefined ? {} : { payload }) });
  /** A model call made outside any turn (as compaction makes them), attributed by hand. */
  const callAs = async (who: Partial<Attribution>): Promise<void> => {
    const events = t.services.models.get().stream({
      model: '',
      messages: [{ role: 'user', content: 'hi' }],
      signal: new AbortController().signal,
      caller: reattributed(undefined, who),
    });
    for await (const _event of events);
  };
  const chat = (model: string, options: { key?: string; stream?: boolean } = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      ...(options.key ? { headers: { authorization: `Bearer ${options.key}` } } : {}),
      payload: { model, messages: [{ role: 'user', content: 'hello' }], stream: options.stream ?? false },
    });

  it('creates, shows, replaces and deletes budgets in the config file, with clear errors', async () => {
    const created = await api('POST', '/budgets', {
      id: 'main-day',
      scope: { agent: 'main' },
      tokens: 1_000_000,
    });
    assert.equal(created.statusCode, 201, created.body);
    const period = periodOf('day', Date.now());
    assert.deepEqual(created.json(), {
      id: 'main-day',
      scope: { agent: 'main' },
      period: 'day',
      tokens: 1_000_000,
      action: 'block',
      spent: { tokens: 0, cost: 0 },
      reserved: { tokens: 0, cost: 0 },
      periodStart: formatLocal(period.start),
      resetsAt: formatLocal(period.end),
      reached: false,
    });
    assert.match(await readFile(t.configPath, 'utf8'), /budgets:[\s\S]*id: main-day/);
    const replaced = await api('PUT', '/budgets/main-day', {
      scope: { channel: 'telegram', accountId: 'bot1' },
      period: 'month',
      cost: 5,
      action: 'warn',
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal(replaced.json().resetsAt, formatLocal(periodOf('month', Date.now()).end));
    assert.deepEqual(replaced.json().scope, { channel: 'telegram', accountId: 'bot1' });
    assert.equal((await api('GET', '/budgets')).json().length, 1);

    const errors: Array<[number, Awaited<ReturnType<typeof api>>, RegExp]> = [
      [400, await api('POST', '/budgets', { id: 'x', scope: {} }), /tokens, cost or both/],
      [400, await api('POST', '/budgets', { id: 'x', scope: { planet: 'mars' }, tokens: 5 }), /scope/],
      [400, await api('POST', '/budgets', { id: 'x', tokens: -5 }), /tokens/],
      [400, await api('POST', '/budgets', { id: 'x', tokens: 5, period: 'week' }), /period/],
      [400, await api('POST', '/budgets', { id: 'bad id', tokens: 5 }), /id/],
      [409, await api('POST', '/budgets', { id: 'main-day', tokens: 5 }), /already exists/],
      [404, await api('GET', '/budgets/nope'), /budget "nope" not found/],
      [404, await api('PUT', '/budgets/nope', { tokens: 5 }), /budget "nope" not found/],
      [400, await api('PUT', '/budgets/main-day', { id: 'other', tokens: 5 }), /not the budget's id/],
      [404, await api('DELETE', '/budgets/nope'), /budget "nope" not found/],
    ];
    for (const [status, response, error] of errors) {
      assert.equal(response.statusCode, status, response.body);
      assert.match(response.json().error, error);
    }
    const removed = await api('DELETE', '/budgets/main-day');
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual((await api('GET', '/budgets')).json(), []);
  });

  it('200 concurrent turns against a $1 daily budget stop with at most one reservation of overspend', async () => {
    const created = await api('POST', '/budgets', { id: 'daily', scope: { agent: 'main' }, cost: 1 });
    assert.equal(created.statusCode, 201, created.body);
    const before = upstream.requestCount;
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat('main')));
    const ok = answers.filter((answer) => answer.statusCode === 200).length;
    const refused = answers.filter((answer) => answer.statusCode === 429);
    assert.equal(ok + refused.length, 200, answers.map((answer) => answer.body).join('\n'));
    assert.equal(upstream.requestCount - before, ok, 'a model call for each answered turn only');
    const status = (await api('GET', '/budgets/daily')).json();
    assert.ok(Math.abs(status.spent.cost - ok * CALL_COST) < 1e-9, JSON.stringify(status));
    assert.ok(status.spent.cost >= 1, `the budget was used up: ${status.spent.cost}`);
    assert.ok(
      status.spent.cost <= 1 + MAX_RESERVATION,
      `overspent by more than a reservation: ${status.spent.cost}`,
    );
    assert.equal(status.reached, true);
    assert.deepEqual(status.reserved, { tokens: 0, cost: 0 });

    // After the stop: no model call at all, streamed or not, and the answer names budget and reset.
    const resetsAt = formatLocal(periodOf('day', Date.now()).end);
    const afterStop = upstream.requestCount;
    for (const stream of [false, true]) {
      const answer = await chat('main', { stream });
      assert.equal(answer.statusCode, 429, answer.body);
      assert.deepEqual(answer.json(), { error: `budget daily reached, resets at ${resetsAt}` });
      assert.ok(Number(answer.headers['retry-after']) > 0);
    }
    assert.equal(upstream.requestCount, afterStop);
    // Another agent is not in the budget's scope.
    assert.equal((await chat('other-agent')).statusCode, 404);
  });

  it('a cron run refused by a budget fails with the reason', async () => {
    const task = await api('POST', '/cron', {
      name: 'nightly',
      schedule: '0 0 3 * * *',
      message: 'go',
      target: 'main',
    });
    assert.equal(task.statusCode, 201, task.body);
    const calls = upstream.requestCount;
    const ran = await api('POST', `/cron/${task.json().id}/run`);
    assert.equal(ran.statusCode, 200, ran.body);
    const runs = (await api('GET', `/cron/${task.json().id}/runs`)).json().data;
    assert.equal(runs[0].status, 'failure');
    assert.match(runs[0].error, /^budget daily reached, resets at \d{4}-\d\d-\d\dT00:00:00[+-]\d\d:\d\d$/);
    assert.equal(upstream.requestCount, calls);
    assert.equal((await api('DELETE', '/budgets/daily')).statusCode, 200);
  });

  it('warns at 80% in the log, through the metric hook and in the chosen chat; a warn budget never blocks', async () => {
    const created = await api('POST', '/budgets', {
      id: 'watch',
      scope: { account: 'partner' },
      tokens: 4000,
      action: 'warn',
      notify: { platform: 'telegram', accountId: 'bot1', chatId: '999' },
    });
    assert.equal(created.statusCode, 201, created.body);
    events.length = 0;
    for (let call = 0; call < 2; call += 1)
      assert.equal((await chat('main', { key: PARTNER_KEY })).statusCode, 200);
    // 3000 of 4000 tokens: 75%, nothing yet. The rate limit (2 a minute) refuses the third request.
    assert.equal(events.length, 0);
    const limited = await chat('main', { key: PARTNER_KEY });
    assert.equal(limited.statusCode, 429);
    assert.match(
      limited.json().error,
      /^rate limit reached: 2 requests per minute for api account partner; retry in \d+ s$/,
    );
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    // A call of the account made outside a turn counts too: 4500 of 4000.
    const sent = tg.callsOf('sendMessage').length;
    await callAs({ agentId: 'main', channel: 'api', accountId: 'partner' });
    // Reached (past 80% in one step: one event), and the warn budget let the call through.
    assert.deepEqual(
      events.map((event) => event.type),
      ['reached'],
    );
    assert.ok(
      logs.some((line) => line.startsWith('budget watch exceeded (warn only)')),
      logs.join('\n'),
    );
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /^agent_service_budget_events_total\{budget="watch",event="reached"\} 1$/m);
    const [notice] = await tg.waitForCalls('sendMessage', sent + 1);
    assert.ok(notice);
    const last = tg.callsOf('sendMessage').at(-1);
    assert.equal(String(last?.params['chat_id']), '999');
    assert.match(String(last?.params['text']), /budget watch exceeded/);
    assert.equal((await api('DELETE', '/budgets/watch')).statusCode, 200);
  });

  it('says 80% once, then the limit once, then refuses the call itself', async () => {
    assert.equal(
      (await api('POST', '/budgets', { id: 'eighty', scope: { agent: 'quiet' }, tokens: 5000 })).statusCode,
      201,
    );
    events.length = 0;
    logs.length = 0;
    const calls = upstream.requestCount;
    for (let call = 0; call < 4; call += 1) await callAs({ agentId: 'quiet' });
    // 1500 tokens a call: 4500 crosses 80% of 5000, 6000 crosses the limit.
    assert.deepEqual(
      events.map((event) => event.type),
      ['warning', 'reached'],
    );
    assert.ok(
      logs.some((line) => line.startsWith('budget eighty: 80% used')),
      logs.join('\n'),
    );
    assert.ok(logs.some((line) => line.startsWith('budget eighty reached; model calls are refused until')));
    await assert.rejects(callAs({ agentId: 'quiet' }), /^AppError: budget eighty reached, resets at /);
    assert.equal(upstream.requestCount, calls + 4);
    assert.equal(events.at(-1)?.type, 'blocked');
    assert.equal((await api('DELETE', '/budgets/eighty')).statusCode, 200);
  });
});

describe('pricing over REST', () => {
  it('a provider takes its pricing, and per-model overrides, through /config/models/providers', async () => {
    const t = await createTestApp();
    try {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/config/models/providers',
        payload: {
          id: 'priced',
          base_url: 'http://127.0.0.1:9/v1',
          model: 'small',
          pricing: { input: 0.15, cached_input: 0.075, output: 0.6 },
          models: [{ name: 'large', pricing: { input: 2.5, output: 10 } }],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json().pricing, { input: 0.15, cached_input: 0.075, output: 0.6 });
      assert.deepEqual(created.json().models, [{ name: 'large', pricing: { input: 2.5, output: 10 } }]);
      const bad = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/config/models/providers/priced',
        payload: { pricing: { input: -1 } },
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().error, /pricing/);
    } finally {
      await t.close();
    }
  });
});

describe('budgets and failover', () => {
  it('a reached budget refuses the call without failing over to the next provider', async () => {
    const first = await startFakeUpstream({
      usage: () => ({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }),
    });
    const second = await startFakeUpstream();
    const t = await createTestApp({
      config: {
        models: {
          default_provider: 'one',
          providers: {
            one: { base_url: first.url, model: 'm', failover: ['two'] },
            two: { base_url: second.url, model: 'm' },
          },
        },
        budgets: [{ id: 'tiny', tokens: 1000 }],
      },
    });
    try {
      const chat = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/chat/completions',
          payload: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
        });
      assert.equal((await chat()).statusCode, 200);
      const refused = await chat();
      assert.equal(refused.statusCode, 429);
      assert.match(refused.json().error, /^budget tiny reached, resets at /);
      // At the model call itself (no turn guard in front): refused once, not once per provider.
      const call = async () => {
        for await (const _event of t.services.models.get().stream({
          model: '',
          messages: [{ role: 'user', content: 'hi' }],
          signal: new AbortController().signal,
        }));
      };
      await assert.rejects(call(), (error: Error) =>
        /^budget tiny reached, resets at [^;]+$/.test(error.message),
      );
      assert.equal(first.requestCount, 1);
      assert.equal(second.requestCount, 0);
    } finally {
      await t.close();
      await first.close();
      await second.close();
    }
  });
});
