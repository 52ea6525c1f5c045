// Facts from rulego-components-ai (action/generate_text.go, agent/transform.go): responseFormat as a
// string, JSON replies typed JSON and unfenced, <think> removed, `{"messages": [...]}` input taken
// as the conversation, message roles system/user/assistant.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { createAiLlmNode } from '../../src/engine/nodes/ai-llm.ts';
import type { ModelRegistry } from '../../src/model-providers/registry.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/model-providers/types.ts';
import { chain, createEngine, testServices } from './helpers.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';

/** A provider that answers `reply` and keeps every request it was sent. */
function scripted(reply: string): { provider: ModelProvider; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    id: 'scripted',
    demo: false,
    async *stream(request): AsyncIterable<ModelEvent> {
      requests.push(request);
      await Promise.resolve();
      yield { type: 'text-delta', text: reply };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { provider, requests };
}

async function runLlm(configuration: Record<string, unknown>, reply: string, input = newMessage('hi')) {
  const { provider, requests } = scripted(reply);
  const models = { get: () => provider, resolve: () => provider } as unknown as ModelRegistry;
  const registry = createDefaultRegistry().register(createAiLlmNode({ models, globals: () => ({}) }));
  const engine = createEngine({ registry, services: testServices() });
  await engine.load(chain('c1', [{ id: 'llm', type: 'ai/llm', configuration }]));
  const result = await engine.execute('c1', input);
  await engine.close();
  return { result, requests };
}

test('responseFormat json_object is sent to the provider and the reply is JSON data, unfenced', async () => {
  const { result, requests } = await runLlm(
    { params: { responseFormat: 'json_object' } },
    '<think>hmm</think>\n```json\n{"a":1}\n```',
  );
  assert.equal(result.outcome, 'success');
  assert.equal(result.results[0]?.dataType, 'JSON');
  assert.equal(result.results[0]?.data, '{"a":1}');
  assert.deepEqual(requests[0]?.params?.responseFormat, { type: 'json_object' });
});

test('responseFormat json_schema sends the schema; text (the default) drops <think> and stays TEXT', async () => {
  const schema = { type: 'object', properties: { n: { type: 'number' } } };
  const structured = await runLlm(
    { params: { responseFormat: 'json_schema', jsonSchema: JSON.stringify(schema) } },
    '{"n":2}',
  );
  assert.equal(structured.result.results[0]?.dataType, 'JSON');
  assert.deepEqual(structured.requests[0]?.params?.responseFormat, {
    type: 'json_schema',
    json_schema: { name: 'response', schema },
  });
  const text = await runLlm({ params: { responseFormat: 'text' } }, '<think>x</think>\nanswer');
  assert.equal(text.result.results[0]?.dataType, 'TEXT');
  assert.equal(text.result.results[0]?.data, 'answer');
  assert.equal(text.requests[0]?.params?.responseFormat, undefined);
});

test('a json_schema whose schema is not JSON fails the load', async () => {
  await assert.rejects(runLlm({ params: { responseFormat: 'json_schema', jsonSchema: '{' } }, ''));
});

test('{"messages": [...]} data is the conversation; configured messages take system, user and assistant', async () => {
  const input = newMessage({
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'bye' },
    ],
  });
  const given = await runLlm({}, 'ok', input);
  assert.deepEqual(given.requests[0]?.messages, [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi' },
    { role: 'user', content: 'bye' },
  ]);
  const configured = await runLlm(
    {
      messages: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'say ${msg.word}' },
      ],
    },
    'ok',
    newMessage({ word: 'yes' }),
  );
  assert.deepEqual(configured.requests[0]?.messages, [
    { role: 'system', content: 'rules' },
    { role: 'user', content: 'say yes' },
  ]);
});
