// Client tools with OpenAI semantics: tools a request sends are offered beside the agent's own; a
// call of one ends the answer with finish_reason "tool_calls", and the next request's tool messages
// continue the turn. Server tools keep running on the server, and every call gets its own id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolCallResultEventSchema, ToolCallStartEventSchema } from '@ag-ui/core/schemas';
import OpenAI from 'openai';
import type { TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { createResource, startTimedAgentApp } from './timed-agent.ts';
import { apiSession } from '../../src/chat/chat-request.ts';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city, looked up by the client',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

interface UpstreamBody {
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; function: { name: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ function: { name: string } }>;
  [key: string]: unknown;
}

describe('client tools', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let client: OpenAI;
  const lastUpstream = (): UpstreamBody => upstream.requests.at(-1) as UpstreamBody;

  before(async () => {
    ({ upstream, t } = await startTimedAgentApp());
    client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: 'unused', maxRetries: 0 });
    await createResource(t, '/api/v1/agents', agentDefinition('plain', { tools: [] }));
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('non-streamed: a client tool call ends the answer with finish_reason tool_calls; the tool message continues it', async () => {
    upstream.script({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const first = await client.chat.completions.create({
      model: 'plain',
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      tools: [weatherTool],
    });
    assert.deepEqual(
      lastUpstream().tools?.map((tool) => tool.function.name),
      ['get_weather'],
    );
    const choice = first.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    assert.deepEqual(choice?.message.tool_calls, [
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);

    upstream.script({ text: 'Sunny in Oslo.' });
    const second = await client.chat.completions.create({
      model: 'plain',
      messages: [
        { role: 'user', content: 'weather in Oslo?' },
        choice!.message,
        { role: 'tool', tool_call_id: 'call_w1', content: '{"sky":"sunny"}' },
      ],
      tools: [weatherTool],
    });
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.equal(second.choices[0]?.message.content, 'Sunny in Oslo.');
    const sent = lastUpstream().messages.filter((message) => message.role !== 'system');
    assert.deepEqual(
      sent.map((message) => [
        message.role,
        message.tool_calls?.[0]?.id ?? message.tool_call_id ?? message.content,
      ]),
      [
        ['user', 'weather in Oslo?'],
        ['assistant', 'call_w1'],
        ['tool', 'call_w1'],
      ],
    );
  });

  it('streamed: the call arrives as OpenAI streams it (index, id, type, name, then argument deltas)', async () => {
    upstream.script({ toolCalls: [{ id: 'call_s1', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'plain',
        stream: true,
        messages: [{ role: 'user', content: 'Rome?' }],
        tools: [weatherTool],
      }),
    });
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    assert.equal(frames.at(-1), 'data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice(6)));
    const deltas = chunks.map((chunk) => chunk.choices[0].delta.tool_calls).filter(Boolean);
    assert.deepEqual(deltas, [
      [{ index: 0, id: 'call_s1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 0, function: { arguments: '{"city":"Rome"}' } }],
    ]);
    assert.deepEqual(chunks.at(-1).choices[0], { index: 0, delta: {}, finish_reason: 'tool_calls' });

    // The SDK's stream helper folds the same stream into the call.
    upstream.script({ toolCalls: [{ id: 'call_s2', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const stream = client.chat.completions.stream({
      model: 'plain',
      messages: [{ role: 'user', content: 'Rome?' }],
      tools: [weatherTool],
    });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(
      final.choices[0]?.message.tool_calls?.map((call) => [
        call.id,
        call.type === 'function' && call.function.arguments,
      ]),
      [['call_s2', '{"city":"Rome"}']],
    );
  });

  it('mixed step: the server tool runs, the client tool is returned; the session stays consistent', async () => {
    upstream.script({
      toolCalls: [
        { id: 'call_m1', name: 'clock', arguments: {} },
        { id: 'call_m2', name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    });
    const first = await client.chat.completions.create({
      model: 'timed',
      messages: [{ role: 'user', content: 'time and weather' }],
      tools: [weatherTool],
      // @ts-expect-error sessionId is this service's extension of the request
      sessionId: 'mixed-1',
    });
    assert.deepEqual(
      lastUpstream().tools?.map((tool) => tool.function.name),
      ['clock', 'get_weather'],
    );
    const message = first.choices[0]!.message;
    assert.deepEqual(
      message.tool_calls?.map((call) => call.id),
      ['call_m2'],
      'only the client call is returned',
    );

    upstream.script({ text: 'It is 12:00 and sunny.' });
    const second = await client.chat.completions.create({
      model: 'timed',
      messages: [
        { role: 'user', content: 'time and weather' },
        message,
        { role: 'tool', tool_call_id: 'call_m2', content: 'sunny' },
      ],
      tools: [weatherTool],
      // @ts-expect-error sessionId is this service's extension of the request
      sessionId: 'mixed-1',
    });
    assert.equal(second.choices[0]?.message.content, 'It is 12:00 and sunny.');
    const summary = (messages: UpstreamBody['messages'] | Array<Record<string, unknown>>) =>
      messages.map(
        (m) =>
          `${String(m['role'] ?? '')}:${JSON.stringify((m as { tool_calls?: Array<{ id: string }> }).tool_calls?.map((c) => c.id) ?? (m as { tool_call_id?: string }).tool_call_id ?? m['content'])}`,
      );
    assert.deepEqual(summary(lastUpstream().messages.filter((m) => m.role !== 'system')), [
      'user:"time and weather"',
      'assistant:["call_m1","call_m2"]',
      'tool:"call_m1"',
      'tool:"call_m2"',
    ]);
    const stored = await t.services.sessions.load(apiSession('timed', 'mixed-1', undefined).key);
    assert.deepEqual(
      stored.map(
        (m) =>
          `${m.role}:${m.role === 'assistant' ? (m.toolCalls?.map((c) => c.id).join(',') ?? m.content) : m.role === 'tool' ? `${m.toolCallId}=${m.content}` : m.content}`,
      ),
      [
        'user:time and weather',
        'assistant:call_m1,call_m2',
        'tool:call_m1=12:00',
        'tool:call_m2=sunny',
        'assistant:It is 12:00 and sunny.',
      ],
    );
  });

  it('a tool message that answers no open call is a 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: {
        model: 'plain',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'call_x', content: 'x' },
        ],
      },
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), {
      error: 'messages: a tool message must answer a tool call of the last assistant message',
    });
  });

  it('repeated upstream ids (call_1 twice) become unique ids in the AG-UI events and the stored messages', async () => {
    upstream.script(
      {
        toolCalls: [
          { id: 'call_1', name: 'clock', arguments: {} },
          { id: 'call_1', name: 'clock', arguments: { again: true } },
        ],
      },
      { text: 'Noon.' },
      { toolCalls: [{ id: 'call_1', name: 'clock', arguments: {} }] },
      { text: 'Still noon.' },
    );
    const events: Array<Record<string, unknown>> = [];
    for (const content of ['time?', 'and now?']) {
      const response = await fetch(`${t.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-stream-protocol': 'agui' },
        body: JSON.stringify({
          model: 'timed',
          stream: true,
          sessionId: 'ids-1',
          messages: [{ role: 'user', content }],
        }),
      });
      const frames = (await response.text()).split('\n\n').filter((frame) => frame.startsWith('data: {'));
      events.push(
        ...frames.flatMap((frame) => JSON.parse(frame.slice(6)).choices?.[0]?.delta.tool_calls ?? []),
      );
    }
    const starts = events.filter((event) => event['type'] === 'TOOL_CALL_START');
    const results = events.filter((event) => event['type'] === 'TOOL_CALL_RESULT');
    assert.equal(starts.length, 3);
    const ids = starts.map((event) => event['toolCallId'] as string);
    assert.equal(new Set(ids).size, 3, `ids are unique: ${ids.join(', ')}`);
    assert.equal(ids[0], 'call_1', 'an id new to the conversation is kept');
    assert.deepEqual(
      results.map((event) => event['toolCallId']),
      ids,
    );
    for (const event of starts) ToolCallStartEventSchema.parse(event);
    for (const event of results) ToolCallResultEventSchema.parse(event);
    assert.equal(new Set(results.map((event) => event['messageId'])).size, 3);
    const stored = await t.services.sessions.load(apiSession('timed', 'ids-1', undefined).key);
    const storedCalls = stored.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [],
    );
    const storedResults = stored.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
    assert.deepEqual(storedCalls, ids);
    assert.deepEqual(storedResults, ids);
  });
});
