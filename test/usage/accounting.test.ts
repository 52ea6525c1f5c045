// Accounting end to end: a fake model that reports usage (cached and reasoning tokens included),
// and every kind of caller: api turns with a sub-agent, an api account's key, a failed call that
// was billed, a retried call, a cron run, a Telegram turn and a call made outside the agent loop
// (as compaction and memory flushes make them). GET /usage sums what the fake reported, to the
// token, per agent, channel and account, and prices it from the config.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import type { UsageReport } from '../fakes/fake-upstream-replies.ts';
import { reattributed } from '../../src/model-providers/caller.ts';
import { localDay } from '../../src/usage/periods.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';
const PARTNER_KEY = 'pk-partner-0123456789abcdef';

interface Seen {
  agent: string;
  phase: string;
  usage: UsageReport;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function agentOf(body: Record<string, unknown>): string {
  const messages = body['messages'] as Array<{ role: string; content: unknown }>;
  const text = messages.map((message) => String(message.content ?? '')).join('\n');
  return /You are (\w+)\./.exec(text)?.[1] ?? 'main';
}

function sum(seen: Seen[], pick: (usage: UsageReport) => number): number {
  return seen.reduce((total, entry) => total + pick(entry.usage), 0);
}

const input = (usage: UsageReport) => usage.prompt_tokens;
const output = (usage: UsageReport) => usage.completion_tokens;
const cached = (usage: UsageReport) => usage.prompt_tokens_details?.cached_tokens ?? 0;
const reasoning = (usage: UsageReport) => usage.completion_tokens_details?.reasoning_tokens ?? 0;
/** input 2, cached input 0.5, output 8 USD per million tokens, in nano-dollars. */
const costNanos = (usage: UsageReport) =>
  (input(usage) - cached(usage)) * 2000 + cached(usage) * 500 + output(usage) * 8000;

describe('usage accounting', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let t: TestApp;
  const seen: Seen[] = [];
  let phase = 'api';

  before(async () => {
    let n = 0;
    upstream = await startFakeUpstream({
      usage: (_reply, body) => {
        n += 1;
        const usage: UsageReport = {
          prompt_tokens: 100 + n * 7,
          completion_tokens: 10 + (n % 5),
          total_tokens: 0,
          prompt_tokens_details: { cached_tokens: n % 4 === 0 ? 32 : 0 },
          completion_tokens_details: { reasoning_tokens: n % 3 },
        };
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
        seen.push({ agent: agentOf(body), phase, usage });
        return usage;
      },
    });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
    const models = upstream.modelsConfig({ pricing: { input: 2, cached_input: 0.5, output: 8 } });
    t = await createTestApp({
      config: {
        models,
        channels: {
          api: { accounts: { partner: { api_key: PARTNER_KEY } } },
          telegram: { enabled: true, accounts: { bot1: { app_secret: TOKEN, api_base: tg.url } } },
        },
        bindings: [{ agent_id: 'helper', match: { channel: 'telegram' } }],
      },
      services: { models: { retryBaseMs: 1 }, channels: { backoff: { baseMs: 20, maxMs: 100 } } },
    });
    for (const definition of [
      agentDefinition('helper', { systemPrompt: 'You are helper.' }),
      agentDefinition('boss', {
        systemPrompt: 'You are boss.',
        tools: [{ type: 'agent', targetId: 'helper', name: 'ask' }],
      }),
    ]) {
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: definition });
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(async () => {
    await t?.close();
    await tg?.close();
    await upstream?.close();
  });

  const chat = (model: string, content: string, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      ...(key ? { headers: { authorization: `Bearer ${key}` } } : {}),
      payload: { model, messages: [{ role: 'user', content }] },
    });
  const usage = async (query = '') => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/usage${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  type Group = { key: string; channel?: string } & Record<string, number>;
  const byKey = (groups: Group[]): Record<string, Group | undefined> =>
    Object.fromEntries(
      groups.map((group) => [group.channel ? `${group.channel}/${group.key}` : group.key, group]),
    );

  it('records every call of every caller; totals equal what the fake reported, to the token', async () => {
    // An api turn whose agent asks a sub-agent: boss, helper, boss.
    upstream.script(
      { toolCalls: [{ name: 'ask', arguments: { input: 'help me' } }] },
      { text: 'helped' },
      {
        text: 'done',
      },
    );
    assert.equal((await chat('boss', 'go')).statusCode, 200);
    // An api account's key.
    phase = 'partner';
    assert.equal((await chat('helper', 'hi', PARTNER_KEY)).statusCode, 200);
    // A call that fails after the provider reported its usage (billed, then cut off).
    phase = 'failed';
    upstream.failNext('usage-disconnect', 1);
    assert.equal((await chat('helper', 'this one fails')).statusCode, 502);
    // A call retried after a 500 (the attempt reported nothing).
    phase = 'retried';
    upstream.failNext('error500', 1);
    assert.equal((await chat('helper', 'retry me')).statusCode, 200);
    // A cron run.
    phase = 'cron';
    const task = await t.app.inject({
      method: 'POST',
      url: '/api/v1/cron',
      payload: { name: 'tick', schedule: '0 0 0 1 1 *', message: 'tick', target: 'boss' },
    });
    assert.equal(task.statusCode, 201, task.body);
    const ran = await t.app.inject({ method: 'POST', url: `/api/v1/cron/${task.json().id}/run` });
    assert.equal(ran.statusCode, 200, ran.body);
    await waitFor(() => seen.some((entry) => entry.phase === 'cron'), 'the cron run');
    // A Telegram user's message (bound to helper).
    phase = 'telegram';
    tg.pushMessage({ chatId: 4242, fromId: 4242, text: 'hello bot' });
    await tg.waitForCalls('sendMessage', 1);
    // A call outside the agent loop (compaction, memory flush): any caller of the registry is metered.
    phase = 'compaction';
    const events = t.services.models.get().stream({
      model: '',
      messages: [{ role: 'user', content: 'You are boss. Summarise.' }],
      signal: new AbortController().signal,
      caller: reattributed(undefined, { agentId: 'boss', channel: 'api' }),
    });
    for await (const _event of events);

    const all = await usage();
    assert.equal(all.totals.inputTokens, upstream.reported.promptTokens);
    assert.equal(all.totals.outputTokens, upstream.reported.completionTokens);
    assert.equal(all.totals.cachedInputTokens, upstream.reported.cachedTokens);
    assert.equal(all.totals.reasoningTokens, upstream.reported.reasoningTokens);
    assert.equal(all.totals.totalTokens, upstream.reported.promptTokens + upstream.reported.completionTokens);
    assert.equal(all.totals.calls, upstream.requestCount, 'one record per request the fake saw');
    assert.equal(all.totals.failedCalls, 2, 'the billed failure and the retried attempt');
    assert.equal(all.totals.estimatedCalls, 0);
    assert.equal(Math.round(all.totals.cost * 1e9), sum(seen, costNanos));
    assert.ok(all.totals.cost > 0);
    assert.ok(
      seen.some((entry) => cached(entry.usage) > 0) && seen.some((entry) => reasoning(entry.usage) > 0),
    );

    const agents = byKey((await usage('?groupBy=agent')).groups);
    for (const agent of ['boss', 'helper']) {
      const mine = seen.filter((entry) => entry.agent === agent);
      assert.equal(agents[agent]?.inputTokens, sum(mine, input), `input tokens of ${agent}`);
      assert.equal(agents[agent]?.outputTokens, sum(mine, output), `output tokens of ${agent}`);
      assert.equal(agents[agent]?.cachedInputTokens, sum(mine, cached), `cached tokens of ${agent}`);
    }
    assert.deepEqual(Object.keys(agents).sort(), ['boss', 'helper']);
    // The sub-agent's call is the helper's, inside the api turn of boss.
    assert.equal(seen.filter((entry) => entry.phase === 'api' && entry.agent === 'helper').length, 1);

    const channels = byKey((await usage('?groupBy=channel')).groups);
    const phasesOf = (...phases: string[]) => seen.filter((entry) => phases.includes(entry.phase));
    const api = phasesOf('api', 'partner', 'failed', 'retried', 'compaction');
    assert.equal(channels['api']?.inputTokens, sum(api, input));
    assert.equal(channels['cron']?.inputTokens, sum(phasesOf('cron'), input));
    assert.equal(channels['cron']?.outputTokens, sum(phasesOf('cron'), output));
    assert.equal(channels['telegram']?.inputTokens, sum(phasesOf('telegram'), input));
    assert.equal(channels['telegram']?.outputTokens, sum(phasesOf('telegram'), output));

    const accounts = byKey((await usage('?groupBy=account')).groups);
    assert.equal(accounts['api/partner']?.inputTokens, sum(phasesOf('partner'), input));
    assert.equal(accounts['api/partner']?.calls, 1);
    assert.equal(accounts['telegram/bot1']?.inputTokens, sum(phasesOf('telegram'), input));

    const users = byKey((await usage('?groupBy=user')).groups);
    assert.equal(users['telegram/4242']?.outputTokens, sum(phasesOf('telegram'), output));

    const models = byKey((await usage('?groupBy=provider')).groups);
    assert.equal(models['fake']?.calls, upstream.requestCount);

    const days = await usage('?groupBy=day');
    assert.deepEqual(
      days.groups.map((group: { key: string }) => group.key),
      [localDay(Date.now())],
    );
    assert.equal(days.groups[0].inputTokens, upstream.reported.promptTokens);
  });

  it('a call cut off before the provider reported usage is recorded as a marked estimate', async () => {
    const before = (await usage()).totals;
    upstream.failNext('disconnect', 1);
    assert.equal((await chat('helper', 'cut me off')).statusCode, 502);
    const after = (await usage()).totals;
    assert.equal(after.calls, before.calls + 1);
    assert.equal(after.estimatedCalls, before.estimatedCalls + 1);
    assert.ok(after.inputTokens > before.inputTokens, 'input estimated from the request');
    assert.ok(after.outputTokens > before.outputTokens, 'output estimated from the text streamed');
  });

  it('answers 400 with {error} for bad bounds and groups', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?groupBy=planet', /groupBy/],
      ['?from=yesterday', /from: use a day/],
      ['?from=2026-02-30', /from: use a day/],
      ['?to=2026-13-01', /to: use a day/],
      ['?from=2026-11-20&to=2026-11-10', /to must be after from/],
      ['?colour=red', /colour|unrecognized|Unrecognized/i],
    ];
    for (const [query, error] of cases) {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1/usage${query}` });
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.match(response.json().error, error, query);
    }
  });

  it('takes local days and ISO instants as bounds, and a range without calls sums to zero', async () => {
    const empty = await usage('?from=2001-01-01&to=2001-01-31&groupBy=agent');
    assert.equal(empty.totals.calls, 0);
    assert.deepEqual(empty.groups, []);
    assert.match(empty.from, /^2001-01-01T00:00:00[+-]\d\d:\d\d$/);
    assert.match(empty.to, /^2001-02-01T00:00:00[+-]\d\d:\d\d$/);
    const iso = await usage(`?from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`);
    assert.ok(iso.totals.calls > 0);
    assert.equal(typeof iso.timeZone, 'string');
  });
});
