// Chat endpoint error paths: bad input, auth, unknown or unloaded agents, and an upstream that
// misbehaves in every way; each ends cleanly for the client and leaves the server healthy.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const UPSTREAM_KEY = 'sk-upstream-secret-0123456789';

const providerConfig = (upstream: FakeUpstream) =>
  upstream.modelsConfig({ api_key: UPSTREAM_KEY, timeout_ms: 1500 });

async function streamFrames(
  url: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; frames: string[] }> {
  const response = await fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  return { status: response.status, frames: text.split('\n\n').filter(Boolean) };
}

describe('chat endpoint errors', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: { models: providerConfig(upstream) },
      services: { models: { retryBaseMs: 1 } },
    });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });
  afterEach(() => upstream.setMode('ok'));

  const chat = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/chat/completions', payload });

  it('an unknown agent is a 404', async () => {
    const response = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { error: 'agent "gpt-4o" not found' });
  });

  it('an invalid body is a 400 naming the field', async () => {
    const missing = await chat({ messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /^body\.model: /);
    const badRole = await chat({ model: 'main', messages: [{ role: 'robot', content: 'hi' }] });
    assert.equal(badRole.statusCode, 400);
    assert.match(badRole.json().error, /^body\.messages\.0\.role: /);
    const empty = await chat({ model: 'main', messages: [] });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().error, /^body\.messages: must hold at least one message/);
    const notUser = await chat({ model: 'main', messages: [{ role: 'assistant', content: 'hi' }] });
    assert.equal(notUser.statusCode, 400);
    assert.deepEqual(notUser.json(), { error: 'messages: the last message must have role "user" or "tool"' });
  });

  it('an agent that is not loaded is a 409', async () => {
    const broken = agentDefinition('off', { disabled: true });
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: broken })).statusCode,
      201,
    );
    const response = await chat({ model: 'off', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(response.statusCode, 409);
    assert.deepEqual(response.json(), { error: 'agent "off" is not loaded' });
  });

  for (const mode of ['error500', 'error429', 'malformed', 'hang'] as const) {
    it(`upstream ${mode}: a 502/504 before the stream, an error frame within it; no key leaks`, async () => {
      upstream.setMode(mode);
      const plain = await chat({ model: 'main', messages: [{ role: 'user', content: 'hi' }] });
      assert.ok(plain.statusCode === 502 || plain.statusCode === 504, `status ${plain.statusCode}`);
      assert.match(plain.json().error, /model provider "fake"/);
      assert.doesNotMatch(plain.body, new RegExp(UPSTREAM_KEY));
      const streamed = await streamFrames(t.url, {
        model: 'main',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(streamed.status, 200);
      const last = JSON.parse((streamed.frames.at(-1) ?? '').slice('data: '.length));
      assert.match(last.error, /model provider "fake"/);
      assert.ok(!streamed.frames.includes('data: [DONE]'));
      upstream.setMode('ok');
      const healthy = await chat({ model: 'main', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(healthy.statusCode, 200);
    });
  }

  it('upstream disconnect mid-stream: the client gets the text so far and one error frame', async () => {
    upstream.setMode('disconnect');
    const streamed = await streamFrames(t.url, {
      model: 'main',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const last = JSON.parse((streamed.frames.at(-1) ?? '').slice('data: '.length));
    assert.match(last.error, /model provider "fake"/);
    assert.ok(streamed.frames.some((frame) => frame.includes('"content"')));
  });

  it('a client that disconnects from a non-streamed chat cancels the upstream call too', async () => {
    upstream.setMode('hang');
    const seen = upstream.clientAborts;
    const before = upstream.requestCount;
    const controller = new AbortController();
    const pending = fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    while (upstream.requestCount === before) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    controller.abort();
    await pending;
    await upstream.waitForClientAbort(seen);
    assert.ok(Date.now() - started < 1000, 'upstream saw the abort promptly');
  });

  it('a client that disconnects cancels the upstream call at once', async () => {
    upstream.setMode('hang');
    const seen = upstream.clientAborts;
    const controller = new AbortController();
    const pending = streamFrames(
      t.url,
      { model: 'main', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      controller.signal,
    ).catch(() => undefined);
    while (upstream.requestCount === 0 || upstream.lastHeaders === undefined)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    controller.abort();
    await pending;
    await upstream.waitForClientAbort(seen);
    assert.ok(Date.now() - started < 1000, 'upstream saw the abort promptly');
  });
});

describe('chat endpoint authentication', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: {
        models: providerConfig(upstream),
        security: { requireAuth: true, users: { admin: 'changeme:sk-admin-key-000' } },
        channels: {
          api: {
            accounts: {
              app1: { api_key: 'sk-app1-key-0000000', enabled: true },
              old: { api_key: 'sk-old-key-00000000', enabled: false },
            },
          },
        },
      },
    });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  const ask = (key: string | undefined) =>
    new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: key ?? 'none', maxRetries: 0 }).chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'hi' }],
    });

  it('an enabled api account key and a user key are accepted', async () => {
    assert.equal(
      (await ask('sk-app1-key-0000000')).choices[0]?.message.content,
      'Hello from the fake upstream.',
    );
    assert.equal((await ask('sk-admin-key-000')).choices[0]?.finish_reason, 'stop');
  });

  it('a missing, wrong or disabled key is a 401', async () => {
    for (const key of ['sk-wrong', 'sk-old-key-00000000']) {
      await assert.rejects(
        ask(key),
        (error: unknown) => error instanceof OpenAI.APIError && error.status === 401,
      );
    }
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'main', messages: [{ role: 'user', content: 'x' }] },
    });
    assert.equal(none.statusCode, 401);
    assert.deepEqual(none.json(), { error: 'missing Authorization: Bearer <token or API key>' });
  });
});

describe('one turn at a time per session', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  before(async () => {
    upstream = await startFakeUpstream({ latencyMs: 150 });
    t = await createTestApp({ config: { models: providerConfig(upstream) } });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('two requests of one session run one after the other; the second sees the first', async () => {
    const ask = (content: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        payload: { model: 'main', sessionId: 'serial', messages: [{ role: 'user', content }] },
      });
    const before = upstream.requests.length;
    const [first, second] = await Promise.all([ask('first'), ask('second')]);
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 200);
    const secondCall = upstream.requests[before + 1] as {
      messages: Array<{ role: string; content: string }>;
    };
    assert.deepEqual(
      secondCall.messages.filter((m) => m.role !== 'system').map((m) => m.content),
      ['first', 'Hello from the fake upstream.', 'second'],
    );
  });

  it('different sessions run concurrently', async () => {
    const started = Date.now();
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((sessionId) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/chat/completions',
          payload: { model: 'main', sessionId, messages: [{ role: 'user', content: 'hi' }] },
        }),
      ),
    );
    assert.ok(Date.now() - started < 4 * 150, 'four 150 ms turns overlapped');
  });
});
