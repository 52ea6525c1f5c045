// Client-tool round trips with agent frameworks, unchanged, against an agent of ours: the OpenAI
// Agents SDK (Chat Completions model) and the AI SDK's `tools`. The framework runs its own tool;
// the agent's server tool keeps running on the server, unseen by the framework.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  Agent,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  tool as agentTool,
} from '@openai/agents';
import { generateText, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import type { TestApp } from '../fakes/app-harness.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startTimedAgentApp } from './timed-agent.ts';

interface UpstreamMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
}

describe('agent frameworks with client tools', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  const asked: string[] = [];
  const sentMessages = (): UpstreamMessage[] =>
    (upstream.requests.at(-1) as { messages: UpstreamMessage[] }).messages.filter((m) => m.role !== 'system');

  before(async () => {
    // The Agents SDK would export traces to OpenAI; tests talk to loopback only.
    setTracingDisabled(true);
    ({ upstream, t } = await startTimedAgentApp());
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('OpenAI Agents SDK (Chat Completions): its function tool runs in the client and the run completes', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: 'unused', maxRetries: 0 });
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        asked.push(city);
        return `sunny in ${city}`;
      },
    });
    const agent = new Agent({
      name: 'front',
      instructions: 'Answer briefly.',
      model: new OpenAIChatCompletionsModel(client, 'timed'),
      tools: [getWeather],
    });
    upstream.script(
      {
        toolCalls: [
          { id: 'call_c', name: 'clock', arguments: {} },
          { id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'At 12:00 it is sunny in Oslo.' },
    );
    const result = await run(agent, 'time and weather in Oslo?');
    assert.equal(result.finalOutput, 'At 12:00 it is sunny in Oslo.');
    assert.deepEqual(asked, ['Oslo']);
    const sent = sentMessages();
    const results = sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]);
    assert.deepEqual(results, [['call_w', 'sunny in Oslo']], 'the client result went upstream');
  });

  it('AI SDK generateText with tools: the tool runs in the client, the second step answers', async () => {
    const provider = createOpenAICompatible({ name: 'agents', baseURL: `${t.url}/api/v1`, apiKey: 'unused' });
    upstream.script(
      { toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Rome is sunny.' },
    );
    const result = await generateText({
      model: provider('timed'),
      prompt: 'weather in Rome?',
      tools: {
        get_weather: aiTool({
          description: 'Weather of a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, 'Rome is sunny.');
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0]?.finishReason, 'tool-calls');
    assert.deepEqual(
      result.steps[0]?.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input]),
      [['call_a', 'get_weather', { city: 'Rome' }]],
    );
    assert.deepEqual(
      sentMessages()
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id),
      ['call_a'],
    );
  });

  it('AI SDK streamText with tools: the streamed call is parsed and answered the same way', async () => {
    const provider = createOpenAICompatible({ name: 'agents', baseURL: `${t.url}/api/v1`, apiKey: 'unused' });
    upstream.script(
      { toolCalls: [{ id: 'call_b', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Paris is sunny.' },
    );
    const result = streamText({
      model: provider('timed'),
      prompt: 'weather in Paris?',
      tools: {
        get_weather: aiTool({
          description: 'Weather of a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    assert.equal(await result.text, 'Paris is sunny.');
    const steps = await result.steps;
    assert.deepEqual(
      steps[0]?.toolCalls.map((call) => [call.toolName, call.input]),
      [['get_weather', { city: 'Paris' }]],
    );
  });
});
