// POST /api/v1/agents/{agentId}/agui: AG-UI's RunAgentInput in, the AG-UI event stream out, driven
// by @ag-ui/client's HttpAgent (which verifies the event order as it applies the events) and checked
// event by event, as sent, against @ag-ui/core's schemas.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import type { TestApp } from '../fakes/app-harness.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startTimedAgentApp } from './timed-agent.ts';

const weather = {
  name: 'get_weather',
  description: 'Weather of a city, looked up in the browser',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('AG-UI endpoint', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  const agentUrl = (agentId: string) => `${t.url}/api/v1/agents/${agentId}/agui`;

  before(async () => {
    ({ upstream, t } = await startTimedAgentApp());
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  /** Runs the agent with HttpAgent and returns the events it applied (after its own verification). */
  async function run(agent: HttpAgent, tools: (typeof weather)[] = []): Promise<BaseEvent[]> {
    const events: BaseEvent[] = [];
    await agent.runAgent({ tools }, { onEvent: ({ event }) => void events.push(event) });
    return events;
  }

  it('HttpAgent: a server tool call and the answer, as valid AG-UI events and messages', async () => {
    upstream.script(
      {
        toolCalls: [
          { id: 'call_1', name: 'clock', arguments: {} },
          { id: 'call_1', name: 'clock', arguments: { twice: true } },
        ],
      },
      { text: 'It is noon.' },
    );
    const agent = new HttpAgent({ url: agentUrl('timed'), threadId: `thread-${randomUUID()}` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'what time is it?' });
    const events = await run(agent);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'RUN_STARTED',
        'TOOL_CALL_START',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_END',
        'TOOL_CALL_RESULT',
        'TOOL_CALL_START',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_END',
        'TOOL_CALL_RESULT',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'RUN_FINISHED',
      ],
    );
    const messages = agent.messages as Message[];
    const calls = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []) : [],
    );
    assert.equal(calls.length, 2, 'two calls, not merged into one');
    assert.notEqual(calls[0]?.id, calls[1]?.id);
    const results = messages.filter((message) => message.role === 'tool');
    assert.deepEqual(
      results.map((message) => [message.toolCallId, message.content]),
      calls.map((call) => [call.id, '12:00']),
    );
    assert.equal(messages.at(-1)?.role, 'assistant');
    assert.equal(messages.at(-1)?.content, 'It is noon.');
  });

  it('client tools: the run finishes after TOOL_CALL_END; the next run carries the result and continues', async () => {
    upstream.script({ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const agent = new HttpAgent({ url: agentUrl('timed'), threadId: `thread-${randomUUID()}` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'weather in Oslo?' });
    const first = await run(agent, [weather]);
    assert.deepEqual(
      first.map((event) => event.type),
      ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED'],
    );
    const offered = (upstream.requests.at(-1) as { tools: Array<{ function: { name: string } }> }).tools;
    assert.deepEqual(
      offered.map((tool) => tool.function.name),
      ['clock', 'get_weather'],
    );
    const finished = first.at(-1) as unknown as { outcome?: { pendingToolCallIds?: string[] } };
    assert.deepEqual(finished.outcome?.pendingToolCallIds, ['call_w']);
    const call = (agent.messages as Message[]).flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls ?? []) : [],
    )[0];
    assert.deepEqual(call?.function, { name: 'get_weather', arguments: '{"city":"Oslo"}' });

    agent.addMessage({ id: 't1', role: 'tool', toolCallId: 'call_w', content: 'sunny' });
    upstream.script({ text: 'Sunny in Oslo.' });
    const second = await run(agent, [weather]);
    assert.equal(second.at(-1)?.type, 'RUN_FINISHED');
    assert.equal((agent.messages as Message[]).at(-1)?.content, 'Sunny in Oslo.');
    const sent = (
      upstream.requests.at(-1) as {
        messages: Array<{ role: string; tool_call_id?: string; content: unknown }>;
      }
    ).messages;
    assert.deepEqual(
      sent.filter((m) => m.role !== 'system').map((m) => [m.role, m.tool_call_id ?? m.content]),
      [
        ['user', 'weather in Oslo?'],
        ['assistant', null],
        ['tool', 'call_w'],
      ],
    );
  });

  it("every event as sent parses with @ag-ui/core's EventSchema; context reaches the model", async () => {
    upstream.script({ text: 'Hello there.' });
    const response = await fetch(agentUrl('timed'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'raw-thread',
        runId: 'run-1',
        messages: [{ id: 'u1', role: 'user', content: 'hi' }],
        tools: [],
        context: [{ description: 'user timezone', value: 'Europe/Oslo' }],
        state: {},
        forwardedProps: {},
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    const events = frames.map((frame) => EventSchema.parse(JSON.parse(frame.replace(/^data: /, ''))));
    assert.deepEqual(events[0], { type: 'RUN_STARTED', threadId: 'raw-thread', runId: 'run-1' });
    assert.deepEqual(events.at(-1), { type: 'RUN_FINISHED', threadId: 'raw-thread', runId: 'run-1' });
    const system = (
      upstream.requests.at(-1) as { messages: Array<{ role: string; content: string }> }
    ).messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    assert.match(system, /user timezone: Europe\/Oslo/);
  });

  it('an upstream failure ends the stream with RUN_ERROR', async () => {
    upstream.failNext('error500', 4);
    const agent = new HttpAgent({ url: agentUrl('timed'), threadId: `thread-${randomUUID()}` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'hi' });
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    const last = events.at(-1) as unknown as { type: string; message: string };
    assert.equal(last.type, 'RUN_ERROR');
    assert.match(last.message, /model provider "fake" failed/);
  });

  it('a bad RunAgentInput is a 400 naming the field; an unknown agent is a 404', async () => {
    const post = (url: string, payload: unknown) =>
      t.app.inject({ method: 'POST', url, payload: payload as object });
    const noThread = await post('/api/v1/agents/timed/agui', { runId: 'r', messages: [] });
    assert.equal(noThread.statusCode, 400);
    assert.match(noThread.json().error, /^body\.threadId: /);
    const noUser = await post('/api/v1/agents/timed/agui', { threadId: 't', runId: 'r', messages: [] });
    assert.equal(noUser.statusCode, 400);
    assert.deepEqual(noUser.json(), { error: 'messages: the last message must have role "user" or "tool"' });
    const badTool = await post('/api/v1/agents/timed/agui', {
      threadId: 't',
      runId: 'r',
      messages: [{ id: 'u', role: 'user', content: 'x' }],
      tools: [{ name: 'bad name', description: '' }],
    });
    assert.equal(badTool.statusCode, 400);
    assert.match(badTool.json().error, /^body\.tools\.0\.name: /);
    const unknown = await post('/api/v1/agents/nobody/agui', {
      threadId: 't',
      runId: 'r',
      messages: [{ id: 'u', role: 'user', content: 'x' }],
    });
    assert.equal(unknown.statusCode, 404);
  });
});
