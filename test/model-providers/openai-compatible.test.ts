import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LLMock } from '@copilotkit/aimock';
import { AppError } from '../../src/core/errors.ts';
import { createOpenAICompatibleProvider } from '../../src/model-providers/openai-compatible.ts';
import type { OpenAICompatibleOptions } from '../../src/model-providers/openai-compatible.ts';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { collect, failureOf, textOf, userRequest, within } from './stream-helpers.ts';

const KEY = 'sk-test-DISTINCTIVE-9f8e7d6c5b4a';

describe('openai-compatible provider', () => {
  let upstream: FakeUpstream;

  beforeEach(async () => {
    upstream = await startFakeUpstream({ errorMessage: `Incorrect API key provided: ${KEY}` });
  });
  afterEach(async () => {
    await upstream.close();
  });

  const provider = (options: Partial<OpenAICompatibleOptions> = {}) =>
    createOpenAICompatibleProvider({
      id: 'fake',
      baseUrl: upstream.url,
      apiKey: KEY,
      model: 'default-model',
      retryBaseMs: 1,
      ...options,
    });

  it('streams text deltas, then usage, then finish', async () => {
    const events = await collect(provider().stream(userRequest('hi')));
    assert.equal(textOf(events), 'Hello from the fake upstream.');
    assert.ok(
      events.filter((event) => event.type === 'text-delta').length > 1,
      'text arrives in several deltas',
    );
    const usage = events.find((event) => event.type === 'usage');
    assert.deepEqual(usage, {
      type: 'usage',
      usage: { promptTokens: 10, completionTokens: 8, totalTokens: 18 },
    });
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
    const body = upstream.requests[0] as Record<string, unknown>;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.model, 'default-model');
    assert.equal(upstream.lastHeaders?.authorization, `Bearer ${KEY}`);
  });

  it('gathers streamed tool-call fragments into whole calls', async () => {
    upstream.script({
      toolCalls: [
        { id: 'call_a', name: 'glob', arguments: { pattern: '**/*.ts' } },
        { id: 'call_b', name: 'read', arguments: { path: 'README.md', limit: 20 } },
      ],
    });
    const events = await collect(provider().stream(userRequest('list')));
    const calls = events.filter((event) => event.type === 'tool-call');
    assert.deepEqual(calls, [
      { type: 'tool-call', call: { id: 'call_a', name: 'glob', arguments: '{"pattern":"**/*.ts"}' } },
      {
        type: 'tool-call',
        call: { id: 'call_b', name: 'read', arguments: '{"path":"README.md","limit":20}' },
      },
    ]);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
  });

  it('sends messages, tools and params in the OpenAI wire format', async () => {
    await collect(
      provider().stream({
        model: 'other-model',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'list files' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'c1', name: 'glob', arguments: '{"pattern":"*"}' }],
          },
          { role: 'tool', toolCallId: 'c1', content: 'a.txt' },
        ],
        tools: [{ name: 'glob', description: 'find files', parameters: { type: 'object', properties: {} } }],
        params: { temperature: 0.2, topP: 0.9, maxTokens: 50, stop: ['END'] },
        signal: new AbortController().signal,
      }),
    );
    const body = upstream.requests[0] as Record<string, unknown>;
    assert.equal(body.model, 'other-model');
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'glob', arguments: '{"pattern":"*"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
    ]);
    assert.deepEqual(body.tools, [
      {
        type: 'function',
        function: { name: 'glob', description: 'find files', parameters: { type: 'object', properties: {} } },
      },
    ]);
    assert.equal(body.temperature, 0.2);
    assert.equal(body.top_p, 0.9);
    assert.equal(body.max_tokens, 50);
    assert.deepEqual(body.stop, ['END']);
  });

  it('maps a model alias to its name and sends no Authorization header without a key', async () => {
    const keyless = createOpenAICompatibleProvider({
      id: 'local',
      baseUrl: upstream.url,
      model: 'llama',
      aliases: { fast: 'llama-3-8b' },
    });
    await collect(keyless.stream(userRequest('hi', { model: 'fast' })));
    assert.equal(upstream.requests[0]?.model, 'llama-3-8b');
    assert.equal(upstream.lastHeaders?.authorization, undefined);
  });

  it('retries after 500s and succeeds', async () => {
    upstream.failNext('error500', 2);
    const events = await collect(provider().stream(userRequest('hi')));
    assert.equal(textOf(events), 'Hello from the fake upstream.');
    assert.equal(upstream.requestCount, 3);
  });

  it('retries after a 429 (Retry-After: 0) and succeeds', async () => {
    upstream.failNext('error429', 1);
    const events = await collect(provider({ retryBaseMs: 5_000 }).stream(userRequest('hi')));
    assert.equal(textOf(events), 'Hello from the fake upstream.');
    assert.equal(upstream.requestCount, 2);
  });

  it('gives up after three retries with an upstream error that hides the key', async () => {
    upstream.setMode('error500');
    const { error } = await failureOf(provider(), userRequest('hi'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.match(error.message, /^model provider "fake" failed: 500 /);
    assert.ok(!error.message.includes(KEY), error.message);
    assert.match(error.message, /\[redacted\]/);
    assert.equal(upstream.requestCount, 4);
  });

  it('does not retry a 401, and masks the key the upstream echoed', async () => {
    let hits = 0;
    const strict = createServer((_request, response) => {
      hits += 1;
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
    });
    await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = strict.address() as AddressInfo;
      const { error } = await failureOf(
        provider({ baseUrl: `http://127.0.0.1:${port}/v1` }),
        userRequest('hi'),
      );
      assert.ok(error instanceof AppError);
      assert.equal(error.message, 'model provider "fake" failed: 401 Incorrect API key provided: [redacted]');
      assert.equal(hits, 1);
    } finally {
      strict.closeAllConnections();
      await new Promise((resolve) => strict.close(resolve));
    }
  });

  it('does not retry once output has been streamed, and fails with an upstream error', async () => {
    upstream.setMode('disconnect');
    const { error, events } = await failureOf(provider(), userRequest('hi'));
    assert.equal(textOf(events), 'Partial ');
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.equal(upstream.requestCount, 1);
  });

  it('fails with a timeout error when the upstream hangs', async () => {
    upstream.setMode('hang');
    const started = Date.now();
    const { error } = await failureOf(provider({ timeoutMs: 300 }), userRequest('hi'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'timeout');
    assert.equal(error.message, 'model provider "fake" timed out after 300 ms');
    assert.ok(Date.now() - started < 2_000);
    await within(upstream.waitForClientAbort(0), 1_000);
  });

  it('retries a malformed chunk sent before any output, then fails with an upstream error', async () => {
    upstream.setMode('malformed');
    const { error } = await failureOf(provider(), userRequest('hi'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.match(error.message, /malformed/);
    assert.equal(upstream.requestCount, 4);
  });

  it('cancels the upstream request at once when the caller aborts', async () => {
    upstream.setMode('hang');
    const controller = new AbortController();
    const pending = failureOf(provider(), userRequest('hi', { signal: controller.signal }));
    while (upstream.requestCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error('client went away');
    controller.abort(reason);
    const { error } = await pending;
    assert.equal(error, reason);
    await within(upstream.waitForClientAbort(0), 1_000);
    assert.equal(upstream.clientAborts, 1);
  });

  it('stops the upstream request when the consumer stops reading', async () => {
    upstream.setMode('disconnect');
    for await (const event of provider().stream(userRequest('hi'))) {
      assert.equal(event.type, 'text-delta');
      break;
    }
    // The fake cuts the stream itself after 20 ms; only our own cancel counts as a client abort.
    await within(upstream.waitForClientAbort(0), 1_000);
    assert.equal(upstream.clientAborts, 1);
  });

  it('retries connection failures and reports them without the key', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { error } = await failureOf(
      provider({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 }),
      userRequest('hi'),
    );
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.match(error.message, /connection error/);
    assert.ok(!error.message.includes(KEY));
  });

  it('works against aimock, a third-party OpenAI mock', async () => {
    const mock = new LLMock({ port: 0, host: '127.0.0.1' });
    mock.onMessage('weather', { content: 'It is sunny.' });
    mock.onMessage('files', { toolCalls: [{ name: 'glob', arguments: '{"pattern":"*"}' }] });
    await mock.start();
    try {
      const viaMock = createOpenAICompatibleProvider({
        id: 'aimock',
        baseUrl: `${mock.url}/v1`,
        apiKey: 'mock',
        model: 'gpt-4o',
      });
      assert.equal(textOf(await collect(viaMock.stream(userRequest('weather please')))), 'It is sunny.');
      const calls = (await collect(viaMock.stream(userRequest('list files')))).filter(
        (event) => event.type === 'tool-call',
      );
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0]?.type === 'tool-call' && [calls[0].call.name, calls[0].call.arguments], [
        'glob',
        '{"pattern":"*"}',
      ]);
    } finally {
      await mock.stop();
    }
  });
});
