// The AI SDK's OpenAI Responses provider (`@ai-sdk/openai` 2, `ai` 5) against agents of ours,
// unchanged: generateText and streamText, with the SDK's own tools run in the client over several
// steps (it refers back to earlier items by id, as it does with `store` on) and a server tool.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
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

const weather = tool({
  description: 'Weather of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe('AI SDK OpenAI Responses provider', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let provider: ReturnType<typeof createOpenAI>;
  const sent = (): string[] =>
    (upstream.requests.at(-1) as { messages: UpstreamMessage[] }).messages
      .filter((m) => m.role !== 'system')
      .map((m) =>
        m.tool_calls
          ? `call:${m.tool_calls.map((c) => c.function.name).join(',')}`
          : `${m.role}:${String(m.content)}`,
      );

  before(async () => {
    ({ upstream, t } = await startTimedAgentApp());
    provider = createOpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused' });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('generateText: a plain answer with usage', async () => {
    upstream.script({ text: 'Hello from the agent.' });
    const result = await generateText({
      model: provider.responses('timed'),
      prompt: 'hi',
      system: 'Be kind.',
    });
    assert.equal(result.text, 'Hello from the agent.');
    assert.equal(result.finishReason, 'stop');
    assert.ok((result.usage.inputTokens ?? 0) > 0);
    assert.match(String(result.providerMetadata?.['openai']?.['responseId']), /^resp_/);
  });

  it('generateText with a client tool: the call runs in the client and the second step answers', async () => {
    upstream.script(
      { toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Rome is sunny.' },
    );
    const result = await generateText({
      model: provider.responses('timed'),
      prompt: 'weather in Rome?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, 'Rome is sunny.');
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0]?.finishReason, 'tool-calls');
    assert.deepEqual(
      result.steps[0]?.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input]),
      [['call_a', 'get_weather', { city: 'Rome' }]],
    );
    assert.deepEqual(sent(), ['user:weather in Rome?', 'call:get_weather', 'tool:sunny in Rome']);
  });

  it('streamText with a server tool and a client tool: text streams, the client tool round trip completes', async () => {
    upstream.script(
      {
        toolCalls: [
          { id: 'call_c', name: 'clock', arguments: {} },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
      },
      { text: 'At 12:00 Paris is sunny.' },
    );
    const result = streamText({
      model: provider.responses('timed'),
      prompt: 'time and weather in Paris?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    assert.ok(pieces.length > 1, 'the text arrives in pieces');
    assert.equal(pieces.join(''), 'At 12:00 Paris is sunny.');
    const steps = await result.steps;
    assert.deepEqual(
      steps[0]?.toolCalls.map((call) => [call.toolName, call.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.deepEqual(sent(), [
      'user:time and weather in Paris?',
      'call:clock',
      'tool:12:00',
      'call:get_weather',
      'tool:sunny in Paris',
    ]);
  });

  it('generateText on an agent that runs a server tool: the call shows as reasoning and is replayed by id', async () => {
    upstream.script(
      {
        toolCalls: [
          { id: 'call_k', name: 'clock', arguments: {} },
          { id: 'call_g', name: 'get_weather', arguments: { city: 'Bern' } },
        ],
      },
      { text: 'It is 12:00 and sunny in Bern.' },
    );
    const result = await generateText({
      model: provider.responses('timed'),
      prompt: 'time and weather in Bern?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, 'It is 12:00 and sunny in Bern.');
    assert.equal(result.steps[0]?.reasoningText, 'rulechain tool clock({}) -> 12:00');
    assert.deepEqual(sent(), [
      'user:time and weather in Bern?',
      'call:clock',
      'tool:12:00',
      'call:get_weather',
      'tool:sunny in Bern',
    ]);
  });
});
