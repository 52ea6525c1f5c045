// Request parameters pass through to the provider, each validated; n is 1 only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

describe('chat request parameters', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let client: OpenAI;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ listen: true, config: { models: upstream.modelsConfig() } });
    client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: 'unused', maxRetries: 0 });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('plain', { tools: [] }),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  const chat = (body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'plain', messages: [{ role: 'user', content: 'hi' }], ...body },
    });

  it('sampling and format parameters reach the upstream as sent', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    upstream.script({ text: '{"answer":"42"}' });
    const completion = await client.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'answer in JSON' }],
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      top_p: 0.9,
      stop: ['END'],
      logit_bias: { '50256': -100 },
      user: 'user-123',
      n: 1,
    });
    assert.equal(completion.choices[0]?.message.content, '{"answer":"42"}');
    const sent = upstream.requests.at(-1) as Record<string, unknown>;
    assert.deepEqual(
      {
        response_format: sent['response_format'],
        seed: sent['seed'],
        presence_penalty: sent['presence_penalty'],
        frequency_penalty: sent['frequency_penalty'],
        top_p: sent['top_p'],
        stop: sent['stop'],
        logit_bias: sent['logit_bias'],
        user: sent['user'],
      },
      {
        response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        top_p: 0.9,
        stop: ['END'],
        logit_bias: { '50256': -100 },
        user: 'user-123',
      },
    );
    assert.equal('n' in sent, false);

    upstream.script({ text: '{}' });
    assert.equal((await chat({ response_format: { type: 'json_object' } })).statusCode, 200);
    assert.deepEqual((upstream.requests.at(-1) as Record<string, unknown>)['response_format'], {
      type: 'json_object',
    });
  });

  it('tool_choice and parallel_tool_calls go with client tools, and only with tools', async () => {
    const tools = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
    ];
    upstream.script({ text: 'ok' });
    const forced = { type: 'function', function: { name: 'lookup' } };
    assert.equal((await chat({ tools, tool_choice: forced, parallel_tool_calls: false })).statusCode, 200);
    const sent = upstream.requests.at(-1) as Record<string, unknown>;
    assert.deepEqual(sent['tool_choice'], forced);
    assert.equal(sent['parallel_tool_calls'], false);

    upstream.script({ text: 'ok' });
    assert.equal((await chat({ tool_choice: 'auto', parallel_tool_calls: true })).statusCode, 200);
    const bare = upstream.requests.at(-1) as Record<string, unknown>;
    assert.equal('tools' in bare || 'tool_choice' in bare || 'parallel_tool_calls' in bare, false);
  });

  it('n other than 1 is a 400 naming the field', async () => {
    const response = await chat({ n: 2 });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: 'body.n: only 1 is supported' });
    await assert.rejects(
      client.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], n: 3 }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && /only 1 is supported/.test(error.message),
    );
  });

  it('each parameter is validated: a bad value is a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ seed: 1.5 }, /^body\.seed: /],
      [{ presence_penalty: 3 }, /^body\.presence_penalty: /],
      [{ frequency_penalty: -2.5 }, /^body\.frequency_penalty: /],
      [{ top_p: 2 }, /^body\.top_p: /],
      [{ stop: ['a', 'b', 'c', 'd', 'e'] }, /^body\.stop: /],
      [{ logit_bias: { abc: 1 } }, /^body\.logit_bias/],
      [{ logit_bias: { '1': 101 } }, /^body\.logit_bias/],
      [{ user: 5 }, /^body\.user: /],
      [{ response_format: { type: 'xml' } }, /^body\.response_format/],
      [{ response_format: { type: 'json_schema' } }, /^body\.response_format/],
      [{ tool_choice: 'sometimes' }, /^body\.tool_choice: /],
      [
        { tool_choice: { type: 'function', function: { name: 'nope' } } },
        /^body\.tool_choice: names function "nope", which is not in tools/,
      ],
      [{ parallel_tool_calls: 'yes' }, /^body\.parallel_tool_calls: /],
      [{ tools: [{ type: 'function', function: { name: 'bad name' } }] }, /^body\.tools/],
      [
        {
          tools: [
            { type: 'function', function: { name: 'a' } },
            { type: 'function', function: { name: 'a' } },
          ],
        },
        /^body\.tools: function names must be unique/,
      ],
    ];
    for (const [body, pattern] of cases) {
      const response = await chat(body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.match(response.json().error, pattern, JSON.stringify(body));
    }
  });
});
