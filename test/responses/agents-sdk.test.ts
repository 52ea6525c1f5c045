// The OpenAI Agents SDK in its default mode (the Responses API) against agents of ours, unchanged:
// its function tools run in the client, the agent's own tools on the server (seen as hosted tool
// calls), and a handoff to another of the SDK's agents continues on the same endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Agent,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  tool as agentTool,
} from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import type { TestApp } from '../fakes/app-harness.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startTimedAgentApp } from '../chat/timed-agent.ts';

interface UpstreamMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
}

describe('OpenAI Agents SDK (Responses mode)', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  const asked: string[] = [];
  const requests = (): Array<{
    messages: UpstreamMessage[];
    tools?: Array<{ function: { name: string } }>;
  }> => upstream.requests as never;

  const getWeather = agentTool({
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      asked.push(city);
      return `sunny in ${city}`;
    },
  });

  before(async () => {
    // The SDK would export traces to OpenAI; tests talk to loopback only.
    setTracingDisabled(true);
    ({ upstream, t } = await startTimedAgentApp());
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 }));
    setOpenAIAPI('responses');
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('client tool, server tool and a handoff to its own agent, in one run', async () => {
    const specialist = new Agent({
      name: 'specialist',
      instructions: 'You are the weather specialist.',
      model: 'timed',
    });
    const front = new Agent({
      name: 'front',
      instructions: 'Answer briefly.',
      model: 'timed',
      tools: [getWeather],
      handoffs: [specialist],
    });
    const start = upstream.requests.length;
    upstream.script(
      {
        toolCalls: [
          { id: 'call_c', name: 'clock', arguments: {} },
          { id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { toolCalls: [{ id: 'call_h', name: 'transfer_to_specialist', arguments: {} }] },
      { text: 'At 12:00 it is sunny in Oslo.' },
    );
    const result = await run(front, 'time and weather in Oslo?');
    assert.equal(result.finalOutput, 'At 12:00 it is sunny in Oslo.');
    assert.equal(result.lastAgent?.name, 'specialist');
    assert.deepEqual(asked, ['Oslo']);

    const calls = requests().slice(start);
    assert.equal(
      calls.length,
      3,
      'one model call per SDK turn: the mixed step ran the server tool and returned the client call',
    );
    // The offered tools: the agent's own, then the SDK's function tool and its handoff.
    assert.deepEqual(
      calls[0]?.tools?.map((entry) => entry.function.name),
      ['clock', 'get_weather', 'transfer_to_specialist'],
    );
    const lastCall = calls.at(-1)!;
    const results = lastCall.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.ok(results.includes('12:00'), 'the server tool result is replayed');
    assert.ok(results.includes('sunny in Oslo'), 'the client tool result went upstream');
    const system = lastCall.messages.filter((m) => m.role === 'system').map((m) => String(m.content));
    assert.ok(system.includes('You are the weather specialist.'), 'the handoff target answers');

    // The server's own tool call shows among the run's items as a hosted tool call.
    const hosted = result.newItems.filter(
      (item) => item.type === 'tool_call_item' && item.rawItem.type === 'hosted_tool_call',
    );
    assert.equal(hosted.length, 1);
    const raw = hosted[0]?.rawItem as {
      name: string;
      output?: string;
      providerData?: Record<string, unknown>;
    };
    assert.equal(raw.providerData?.['name'], 'clock');
    assert.equal(raw.output, '12:00');
  });

  it('a streamed run with previousResponseId chains the turns on the server', async () => {
    const agent = new Agent({
      name: 'chatty',
      instructions: 'Be chatty.',
      model: 'timed',
      tools: [getWeather],
    });
    upstream.script({ text: 'Hello Ana.' });
    const first = await run(agent, 'I am Ana.', { stream: true });
    for await (const _event of first) {
      // drain the stream
    }
    await first.completed;
    assert.equal(first.finalOutput, 'Hello Ana.');
    assert.match(first.lastResponseId ?? '', /^resp_/);

    upstream.script(
      { toolCalls: [{ id: 'call_r', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Ana, Rome is sunny.' },
    );
    const second = await run(agent, 'Weather in Rome?', { previousResponseId: first.lastResponseId! });
    assert.equal(second.finalOutput, 'Ana, Rome is sunny.');
    const sent = requests()
      .at(-1)!
      .messages.filter((m) => m.role !== 'system')
      .map((m) =>
        m.tool_calls ? `call:${m.tool_calls[0]?.function.name}` : `${m.role}:${String(m.content)}`,
      );
    assert.deepEqual(sent, [
      'user:I am Ana.',
      'assistant:Hello Ana.',
      'user:Weather in Rome?',
      'call:get_weather',
      'tool:sunny in Rome',
    ]);
  });
  it('a run with conversationId keeps its turns in that session', async () => {
    const agent = new Agent({ name: 'memo', instructions: 'Remember.', model: 'timed' });
    upstream.script({ text: 'Noted: blue.' }, { text: 'Blue.' });
    await run(agent, 'My colour is blue.', { conversationId: 'agents-conv-1' });
    const second = await run(agent, 'What is my colour?', { conversationId: 'agents-conv-1' });
    assert.equal(second.finalOutput, 'Blue.');
    const sent = requests()
      .at(-1)!
      .messages.filter((m) => m.role !== 'system')
      .map((m) => `${m.role}:${String(m.content)}`);
    assert.deepEqual(sent, ['user:My colour is blue.', 'assistant:Noted: blue.', 'user:What is my colour?']);
  });
});
