// The Responses API's errors, ownership and life cycle: every bad field is a 400 naming it (and the
// openai SDK still raises its error classes), responses belong to their api account, a running
// response can be cancelled, background responses are polled, input items are paged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { ResponseStore } from '../../src/resources/responses/responses.store.ts';

const ADMIN = 'sk-admin-key-000';
const APP1 = 'sk-app1-key-0000000';
const APP2 = 'sk-app2-key-0000000';

describe('Responses API: validation, ownership, cancel, background', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  const sdk = (key = APP1, base = '/api/v1') =>
    new OpenAI({ baseURL: `${t.url}${base}`, apiKey: key, maxRetries: 0 });
  const post = (payload: unknown, key = APP1) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/responses',
      headers: { authorization: `Bearer ${key}` },
      payload: payload as Record<string, unknown>,
    });

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        security: { requireAuth: true, users: { admin: `changeme:${ADMIN}` } },
        channels: {
          api: {
            accounts: {
              app1: { api_key: APP1, enabled: true },
              app2: { api_key: APP2, enabled: true },
            },
          },
        },
      },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      headers: { authorization: `Bearer ${ADMIN}` },
      payload: agentDefinition('plain', { tools: [] }),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  const cases: Array<[string, Record<string, unknown>, number, RegExp]> = [
    ['no model', { input: 'hi' }, 400, /^body\.model: /],
    ['no input', { model: 'plain' }, 400, /^body\.input: /],
    ['an unknown agent', { model: 'gpt-4o', input: 'hi' }, 404, /agent "gpt-4o"/],
    [
      'a temperature out of range',
      { model: 'plain', input: 'hi', temperature: 3 },
      400,
      /^body\.temperature: /,
    ],
    ['top_p out of range', { model: 'plain', input: 'hi', top_p: 1.5 }, 400, /^body\.top_p: /],
    [
      'max_output_tokens of 0',
      { model: 'plain', input: 'hi', max_output_tokens: 0 },
      400,
      /^body\.max_output_tokens: /,
    ],
    [
      'a hosted tool',
      { model: 'plain', input: 'hi', tools: [{ type: 'web_search' }] },
      400,
      /^body\.tools\.0\.type: tool type "web_search" is not supported/,
    ],
    [
      'a function tool without a name',
      { model: 'plain', input: 'hi', tools: [{ type: 'function' }] },
      400,
      /^body\.tools\.0\.name: /,
    ],
    [
      'a tool_choice naming no tool',
      { model: 'plain', input: 'hi', tool_choice: { type: 'function', name: 'nope' } },
      400,
      /^body\.tool_choice: names function "nope"/,
    ],
    [
      'an unknown item type',
      { model: 'plain', input: [{ type: 'computer_call_output' }] },
      400,
      /^body\.input\.0\.type: item type "computer_call_output" is not supported/,
    ],
    [
      'a function output without call_id',
      { model: 'plain', input: [{ type: 'function_call_output', output: 'x' }] },
      400,
      /^body\.input\.0\.call_id: /,
    ],
    [
      'an image by file_id',
      { model: 'plain', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
      400,
      /file_id is not supported/,
    ],
    [
      'a bad role',
      { model: 'plain', input: [{ role: 'tool', content: 'x' }] },
      400,
      /^body\.input\.0\.role: /,
    ],
    [
      'input ending on an assistant message',
      { model: 'plain', input: [{ role: 'assistant', content: 'x' }] },
      400,
      /^input: the last item must be a user message or a function_call_output$/,
    ],
    [
      'a json_schema format without a schema',
      { model: 'plain', input: 'hi', text: { format: { type: 'json_schema', name: 'x' } } },
      400,
      /^body\.text\.format\.schema: /,
    ],
    [
      'too many metadata keys',
      {
        model: 'plain',
        input: 'hi',
        metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
      },
      400,
      /^body\.metadata: at most 16 keys/,
    ],
    [
      'a bad truncation',
      { model: 'plain', input: 'hi', truncation: 'sometimes' },
      400,
      /^body\.truncation: /,
    ],
    [
      'both previous_response_id and conversation',
      { model: 'plain', input: 'hi', previous_response_id: 'resp_1', conversation: 'c' },
      400,
      /^body\.conversation: send either previous_response_id or conversation, not both$/,
    ],
    [
      'an unknown previous response',
      { model: 'plain', input: 'hi', previous_response_id: 'resp_nope' },
      404,
      /^previous_response_id: response "resp_nope" does not exist$/,
    ],
    [
      'an unknown item_reference',
      { model: 'plain', input: [{ type: 'item_reference', id: 'msg_nope' }] },
      404,
      /^input\.0: item "msg_nope" does not exist$/,
    ],
    [
      'background with stream',
      { model: 'plain', input: 'hi', background: true, stream: true },
      400,
      /^body\.background: a background response is not streamed/,
    ],
    [
      'background without store',
      { model: 'plain', input: 'hi', background: true, store: false },
      400,
      /^body\.background: a background response needs store: true$/,
    ],
  ];
  for (const [name, payload, status, message] of cases) {
    it(`${name} is a ${status} with a clear {error}`, async () => {
      const response = await post(payload);
      assert.equal(response.statusCode, status, response.body);
      const body = response.json() as { error: unknown };
      assert.deepEqual(Object.keys(body), ['error']);
      assert.match(String(body.error), message);
    });
  }

  it('GET with stream=true (a replay of the events) is a 400', async () => {
    const response = await t.app.inject({
      url: '/api/v1/responses/resp_x?stream=true',
      headers: { authorization: `Bearer ${APP1}` },
    });
    assert.equal(response.statusCode, 400);
    assert.equal(
      (response.json() as { error: string }).error,
      'query.stream: replaying a response as a stream is not supported; omit stream',
    );
  });

  it('the openai SDK raises its error classes for these answers', async () => {
    await assert.rejects(
      sdk().responses.create({ model: 'plain', input: 'hi', temperature: 3 }),
      OpenAI.BadRequestError,
    );
    await assert.rejects(sdk().responses.create({ model: 'nope', input: 'hi' }), OpenAI.NotFoundError);
    await assert.rejects(
      sdk('sk-wrong').responses.create({ model: 'plain', input: 'hi' }),
      OpenAI.AuthenticationError,
    );
    await assert.rejects(
      sdk('sk-wrong', '/v1').responses.create({ model: 'plain', input: 'hi' }),
      OpenAI.AuthenticationError,
    );
  });

  it("a stored response is its api account's own: another account gets a 404 for it", async () => {
    const mine = await sdk(APP1).responses.create({ model: 'plain', input: 'hi' });
    assert.equal((await sdk(APP1).responses.retrieve(mine.id)).id, mine.id);
    await assert.rejects(sdk(APP2).responses.retrieve(mine.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(APP2).responses.delete(mine.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(APP2).responses.inputItems.list(mine.id), OpenAI.NotFoundError);
    const reference = await post(
      { model: 'plain', input: [{ type: 'item_reference', id: mine.output[0]?.id }] },
      APP2,
    );
    assert.equal(reference.statusCode, 404, reference.body);
    const continued = await post({ model: 'plain', input: 'more', previous_response_id: mine.id }, APP2);
    assert.equal(continued.statusCode, 404, continued.body);
  });

  it('item_reference replays an item of an earlier response (as the AI SDK sends with store on)', async () => {
    upstream.script({ text: 'First answer.' });
    const first = await sdk().responses.create({ model: 'plain', input: 'first' });
    const [userItem] = (await sdk().responses.inputItems.list(first.id)).data;
    upstream.script({ text: 'Second answer.' });
    await sdk().responses.create({
      model: 'plain',
      input: [
        { type: 'item_reference', id: userItem!.id },
        { type: 'item_reference', id: first.output[0]!.id! },
        { role: 'user', content: 'second' },
      ],
    });
    const sent = (upstream.requests.at(-1) as { messages: Array<{ role: string; content: string }> })
      .messages;
    assert.deepEqual(
      sent
        .filter((message) => message.role !== 'system')
        .map((message) => `${message.role}:${message.content}`),
      ['user:first', 'assistant:First answer.', 'user:second'],
    );
  });

  it('input_items are listed newest first by default, and paged with limit and after', async () => {
    const response = await sdk().responses.create({
      model: 'plain',
      input: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ],
    });
    const texts = (items: Array<{ type: string; content?: unknown }>) =>
      items.map((item) => (item.content as Array<{ text: string }>)[0]?.text);
    const all = await sdk().responses.inputItems.list(response.id);
    assert.deepEqual(texts(all.data), ['c', 'b', 'a']);
    const page = await sdk().responses.inputItems.list(response.id, { order: 'asc', limit: 2 });
    assert.deepEqual(texts(page.data), ['a', 'b']);
    assert.equal(page.has_more, true);
    const next = await sdk().responses.inputItems.list(response.id, {
      order: 'asc',
      limit: 2,
      after: page.data[1]!.id,
    });
    assert.deepEqual(texts(next.data), ['c']);
    assert.equal(next.has_more, false);
    const bad = await t.app.inject({
      url: `/api/v1/responses/${response.id}/input_items?limit=500`,
      headers: { authorization: `Bearer ${APP1}` },
    });
    assert.equal(bad.statusCode, 400);
    assert.match((bad.json() as { error: string }).error, /^query\.limit: /);
  });

  it('cancel stops a running streamed response: the stream ends with status cancelled, and so does GET', async () => {
    upstream.setMode('hang');
    const seen = upstream.requestCount;
    const aborts = upstream.clientAborts;
    try {
      const stream = sdk().responses.stream({ model: 'plain', input: 'wait' });
      const events: string[] = [];
      let id = '';
      stream.on('response.created', (event) => {
        id = event.response.id;
      });
      stream.on('event', (event) => events.push(event.type));
      const final = stream.finalResponse().catch((error: unknown) => error);
      while (upstream.requestCount === seen || id === '')
        await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await sdk().responses.retrieve(id)).status, 'in_progress');
      const cancelled = await sdk().responses.cancel(id);
      assert.equal(cancelled.status, 'cancelled');
      const ended = (await final) as OpenAI.Responses.Response;
      assert.equal(ended.status, 'cancelled');
      assert.equal(events.at(-1), 'response.failed');
      assert.equal((await sdk().responses.retrieve(id)).status, 'cancelled');
      await upstream.waitForClientAbort(aborts);
      const again = await t.app.inject({
        method: 'POST',
        url: `/api/v1/responses/${id}/cancel`,
        headers: { authorization: `Bearer ${APP1}` },
      });
      assert.equal(again.statusCode, 200, 'cancelling a cancelled response answers it again');
    } finally {
      upstream.setMode('ok');
    }
  });

  it('a completed response cannot be cancelled (409); an unknown one is a 404', async () => {
    const done = await sdk().responses.create({ model: 'plain', input: 'hi' });
    await assert.rejects(sdk().responses.cancel(done.id), OpenAI.ConflictError);
    await assert.rejects(sdk().responses.cancel('resp_unknown'), OpenAI.NotFoundError);
  });

  it('background: answered at once in progress, then completed for GET; cancel works on it', async () => {
    upstream.script({ text: 'Done in the background.' });
    const started = await sdk().responses.create({ model: 'plain', input: 'work', background: true });
    assert.equal(started.background, true);
    assert.ok(['in_progress', 'completed'].includes(started.status ?? ''));
    let polled = await sdk().responses.retrieve(started.id);
    while (polled.status === 'in_progress') {
      await new Promise((resolve) => setTimeout(resolve, 10));
      polled = await sdk().responses.retrieve(started.id);
    }
    assert.equal(polled.status, 'completed');
    assert.equal(polled.output_text, 'Done in the background.');
    assert.equal((await sdk().responses.inputItems.list(started.id)).data.length, 1);

    upstream.setMode('hang');
    try {
      const seen = upstream.requestCount;
      const hanging = await sdk().responses.create({ model: 'plain', input: 'wait', background: true });
      while (upstream.requestCount === seen) await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await sdk().responses.cancel(hanging.id)).status, 'cancelled');
      assert.equal((await sdk().responses.retrieve(hanging.id)).status, 'cancelled');
    } finally {
      upstream.setMode('ok');
    }
  });

  it('the stream is text/event-stream of `event:` and `data:` lines, without [DONE]', async () => {
    upstream.script({ text: 'Hi.' });
    const response = await fetch(`${t.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${APP1}` },
      body: JSON.stringify({ model: 'plain', input: 'hi', stream: true }),
    });
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine?.replace(/^data: /, '') ?? '') as { type: string };
      assert.equal(eventLine, `event: ${data.type}`);
    }
    assert.match(frames.at(-1) ?? '', /^event: response\.completed\n/);
    assert.ok(!frames.some((frame) => frame.includes('[DONE]')));
  });

  it('a response carries every field of the Responses object, with OpenAI defaults', async () => {
    const response = (await (
      await fetch(`${t.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${APP1}` },
        body: JSON.stringify({ model: 'plain', input: [{ type: 'message', role: 'user', content: 'hi' }] }),
      })
    ).json()) as Record<string, unknown>;
    const expected: Record<string, unknown> = {
      object: 'response',
      status: 'completed',
      model: 'plain',
      error: null,
      incomplete_details: null,
      instructions: null,
      previous_response_id: null,
      max_output_tokens: null,
      max_tool_calls: null,
      tools: [],
      tool_choice: 'auto',
      truncation: 'disabled',
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      temperature: 1,
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      reasoning: null,
      store: true,
      background: false,
      service_tier: 'default',
      metadata: {},
      safety_identifier: null,
      prompt_cache_key: null,
    };
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(response[key], value, key);
    assert.ok(Number.isInteger(response['created_at']) && Number.isInteger(response['completed_at']));
    assert.deepEqual(Object.keys(response['usage'] as object), [
      'input_tokens',
      'input_tokens_details',
      'output_tokens',
      'output_tokens_details',
      'total_tokens',
    ]);
    const [message] = response['output'] as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(message ?? {}).sort(), ['content', 'id', 'role', 'status', 'type']);
    assert.deepEqual((message?.['content'] as unknown[])[0], {
      type: 'output_text',
      text: 'Hello from the fake upstream.',
      annotations: [],
      logprobs: [],
    });
  });

  it('users share their stored responses (a user key and a login token), apart from the accounts', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'changeme' },
    });
    const token = (login.json() as { token: string }).token;
    const made = await sdk(ADMIN).responses.create({ model: 'plain', input: 'hi' });
    assert.equal((await sdk(token).responses.retrieve(made.id)).id, made.id);
    await assert.rejects(sdk(APP1).responses.retrieve(made.id), OpenAI.NotFoundError);
  });

  it('a response stored as running by a process that ended is marked cancelled by cancel', async () => {
    const id = 'resp_0123456789abcdef0123456789abcdef';
    const body = {
      id,
      object: 'response',
      created_at: 1_700_000_000,
      status: 'in_progress',
      model: 'plain',
      output: [],
    };
    await new ResponseStore(t.services.db).save({
      id,
      owner: 'account:app1',
      agentId: 'plain',
      status: 'in_progress',
      body,
      sessionKey: null,
      sessionEnd: null,
      createdAt: 1_700_000_000_000,
    });
    const cancelled = await sdk().responses.cancel(id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.error?.code, 'cancelled');
    assert.equal((await sdk().responses.retrieve(id)).status, 'cancelled');
  });

  it('an upstream failure is a 502 when not streamed, and response.failed when streamed (stored as failed)', async () => {
    upstream.failNext('error500', 4);
    const answer = await post({ model: 'plain', input: 'hi' });
    assert.equal(answer.statusCode, 502, answer.body);
    assert.deepEqual(Object.keys(answer.json() as object), ['error']);

    upstream.failNext('error500', 4);
    const stream = sdk().responses.stream({ model: 'plain', input: 'hi' });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const final = await stream.finalResponse();
    assert.equal(final.status, 'failed');
    assert.equal(final.error?.code, 'server_error');
    assert.ok(final.error?.message);
    assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
    assert.equal(types.at(-1), 'response.failed');
    assert.equal((await sdk().responses.retrieve(final.id)).status, 'failed');
    await assert.rejects(
      sdk().responses.create({ model: 'plain', input: 'more', previous_response_id: final.id }),
      OpenAI.BadRequestError,
    );
  });
});
