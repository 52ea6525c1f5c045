// GET /metrics end to end: a Prometheus text parser reads it; its counters match what was done (turns,
// the tokens the fake model reported, tool calls, requests); no label carries a session key or a
// user; protected like the API unless observability.metrics_public.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

type Families = ReturnType<typeof parsePrometheusTextFormat>;

function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((entry) => entry.name === name);
  assert.ok(family, `family ${name} is exported`);
  const matching = family.metrics.filter((sample) =>
    Object.entries(labels).every(([key, expected]) => sample.labels?.[key] === expected),
  );
  return matching.reduce((sum, sample) => sum + Number(sample.value ?? sample.count ?? 0), 0);
}

describe('Prometheus metrics', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ listen: true, config: { models: upstream.modelsConfig() } });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('counts turns, the tokens the fake model reported, tool calls and requests, with bounded labels', async () => {
    upstream.script(
      { toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] },
      { text: 'Done with tools.' },
    );
    const chat = async (sessionId: string, content: string) => {
      const response = await fetch(`${t.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', sessionId, messages: [{ role: 'user', content }] }),
      });
      assert.equal(response.status, 200);
      return (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    };
    const first = await chat('secret-session-4711', 'use a tool');
    upstream.script({ text: 'Second answer.' });
    const second = await chat('secret-session-4711', 'again');
    const failing = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ghost', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(failing.status, 404);

    const response = await fetch(`${t.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const families = parsePrometheusTextFormat(text);
    const ours = families.filter((family) => family.name.startsWith('agent_service_'));
    assert.ok(ours.length >= 25, `only ${ours.length} families`);
    for (const name of [
      'agent_service_http_request_duration_seconds',
      'agent_service_model_time_to_first_token_seconds',
      'agent_service_channel_connections',
      'agent_service_cron_fire_lateness_seconds',
      'agent_service_node_runs_total',
      'agent_service_session_compactions_total',
      'agent_service_websocket_subscribers',
      'agent_service_nodejs_eventloop_lag_seconds',
      'agent_service_process_resident_memory_bytes',
    ])
      assert.ok(
        families.some((family) => family.name === name),
        `${name} is exported`,
      );

    assert.equal(
      value(families, 'agent_service_turns_total', { agent: 'main', channel: 'api', outcome: 'success' }),
      2,
    );
    // The parser keeps no labels of histogram samples: their counts are read from the text itself.
    assert.match(
      text,
      /^agent_service_turn_duration_seconds_count\{agent="main",channel="api",outcome="success"\} 2$/mu,
    );
    assert.match(
      text,
      /^agent_service_model_call_duration_seconds_count\{provider="fake",model="default"\} 3$/mu,
    );
    assert.match(text, /^agent_service_tool_call_duration_seconds_count\{tool_type="builtin"\} 1$/mu);
    const input = first.usage.prompt_tokens + second.usage.prompt_tokens;
    const output = first.usage.completion_tokens + second.usage.completion_tokens;
    assert.ok(input > 0 && output > 0);
    assert.equal(
      value(families, 'agent_service_model_tokens_total', { provider: 'fake', direction: 'input' }),
      input,
    );
    assert.equal(
      value(families, 'agent_service_model_tokens_total', { provider: 'fake', direction: 'output' }),
      output,
    );
    assert.equal(
      value(families, 'agent_service_turn_tokens_total', { agent: 'main', direction: 'output' }),
      output,
    );
    assert.equal(
      value(families, 'agent_service_model_calls_total', { provider: 'fake', outcome: 'success' }),
      3,
    );
    assert.equal(
      value(families, 'agent_service_tool_calls_total', { tool_type: 'builtin', outcome: 'success' }),
      1,
    );
    assert.equal(value(families, 'agent_service_session_turns_total', { channel: 'api' }), 2);
    assert.equal(value(families, 'agent_service_chain_runs_total', { chain: 'main', outcome: 'success' }), 2);
    assert.ok(value(families, 'agent_service_node_runs_total', { node_type: 'ai/agent' }) >= 2);
    assert.equal(
      value(families, 'agent_service_http_requests_total', {
        route: '/api/v1/chat/completions',
        status: '200',
      }),
      2,
    );
    assert.equal(
      value(families, 'agent_service_http_requests_total', {
        route: '/api/v1/chat/completions',
        status: '404',
      }),
      1,
    );
    // No session key, input or raw URL becomes a label.
    assert.doesNotMatch(text, /secret-session-4711|use a tool|ghost/);

    // The counts are handed to prom-client at each scrape: a later scrape shows the turns since.
    upstream.script({ text: 'Third answer.' });
    await chat('another-session', 'once more');
    const later = await (await fetch(`${t.url}/metrics`)).text();
    assert.equal(
      value(parsePrometheusTextFormat(later), 'agent_service_turns_total', {
        agent: 'main',
        channel: 'api',
        outcome: 'success',
      }),
      3,
    );
    assert.match(
      later,
      /^agent_service_turn_duration_seconds_count\{agent="main",channel="api",outcome="success"\} 3$/mu,
    );
    assert.match(later, /^agent_service_turns_in_flight\{channel="api"\} 0$/mu);
  });

  it('the number of values an open label takes is capped', async () => {
    const { BoundedLabel } = await import('../../src/observability/metrics.ts');
    const label = new BoundedLabel(3);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'a', 'e'].map((v) => label.value(v)),
      ['a', 'b', 'c', 'other', 'a', 'other'],
    );
    assert.equal(new BoundedLabel(3).value(''), 'none');
  });
});

describe('GET /metrics protection', () => {
  let t: TestApp | undefined;
  after(() => t?.close());

  it('needs a user credential while requireAuth is on, and none with metrics_public', async () => {
    const users = { admin: 'admin-password-1:sk-admin-key-0123456789' };
    t = await createTestApp({
      config: {
        security: { requireAuth: true, users },
        channels: { api: { enabled: true, accounts: { app: { api_key: 'sk-app-key-0123456789' } } } },
      },
    });
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 401);
    assert.deepEqual(none.json(), { error: 'missing Authorization: Bearer <token or API key>' });
    const account = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer sk-app-key-0123456789' },
    });
    assert.equal(account.statusCode, 401);
    const user = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer sk-admin-key-0123456789' },
    });
    assert.equal(user.statusCode, 200);
    await t.close();
    t = await createTestApp({
      config: { security: { requireAuth: true, users }, observability: { metrics_public: true } },
    });
    const open = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(open.statusCode, 200);
    assert.match(open.body, /agent_service_turns_total/);
  });
});
