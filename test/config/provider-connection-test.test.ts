// POST /config/models/providers/{name}/test: one tiny request to the provider, answered as
// {ok, latencyMs, model, error}, against the fake upstream; the key never shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const KEY = 'sk-connection-test-secret-0123456789';

describe('model provider connection test', () => {
  let upstream: FakeUpstream;
  let server: TestApp;

  before(async () => {
    upstream = await startFakeUpstream({ errorMessage: `invalid key ${KEY}` });
    server = await createTestApp({
      config: {
        models: {
          default_provider: 'fake',
          providers: {
            fake: { base_url: upstream.url, api_key: KEY, model: 'fake-model' },
            // Nothing listens on port 9 of loopback: the connection is refused.
            down: { base_url: 'http://127.0.0.1:9/v1', model: 'x' },
          },
        },
      },
    });
  });
  after(async () => {
    await server?.close();
    await upstream?.close();
  });

  const test = (name: string) =>
    server.app.inject({ method: 'POST', url: `/api/v1/config/models/providers/${name}/test` });

  it('answers ok with the latency after one tiny request with the key', async () => {
    const before = upstream.requestCount;
    const response = await test('fake');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { ok: boolean; latencyMs: number; model: string; error?: string };
    assert.equal(body.ok, true);
    assert.equal(body.model, 'fake-model');
    assert.equal(typeof body.latencyMs, 'number');
    assert.ok(body.latencyMs >= 0);
    assert.equal(body.error, undefined);
    assert.equal(upstream.requestCount, before + 1, 'exactly one request, no retries');
    const sent = upstream.requests.at(-1) as {
      model: string;
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    assert.equal(sent.model, 'fake-model');
    assert.equal(sent.max_tokens ?? sent.max_completion_tokens, 1);
    assert.equal(upstream.lastHeaders?.authorization, `Bearer ${KEY}`);
    assert.ok(!response.body.includes(KEY));
  });

  it('a failing provider is ok: false with the reason, once, and without the key', async () => {
    upstream.failNext('error500', 1);
    const before = upstream.requestCount;
    const response = await test('fake');
    assert.equal(response.statusCode, 200);
    const body = response.json() as { ok: boolean; error?: string };
    assert.equal(body.ok, false);
    assert.match(body.error ?? '', /model provider "fake" failed/);
    assert.ok(!response.body.includes(KEY), 'the key the upstream echoed is masked');
    assert.equal(upstream.requestCount, before + 1, 'no retry');
  });

  it('an unreachable provider is ok: false with the reason', async () => {
    const response = await test('down');
    assert.equal(response.statusCode, 200);
    const body = response.json() as { ok: boolean; error?: string };
    assert.equal(body.ok, false);
    assert.match(body.error ?? '', /model provider "down" failed/);
  });

  it('an unknown provider is a 404, a bad name a 400', async () => {
    const missing = await test('nope');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: 'model provider "nope" not found' });
    const bad = await test('bad%20name');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /name/);
  });

  it('is in the OpenAPI document', async () => {
    const document = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    assert.ok(document.paths['/api/v1/config/models/providers/{name}/test']?.['post']);
  });
});
