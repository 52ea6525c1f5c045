// Facts from rulego-components-ai (agent/transform.go, action/generate_text.go): the preset
// `messages` of ai/agent and ai/llm, rendered per message, with the system prompt and the input;
// their templates read earlier node outputs (${node1.msg.x}).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { createAiAgentNode } from '../../src/engine/nodes/ai-agent.ts';
import { createAiLlmNode } from '../../src/engine/nodes/ai-llm.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import type { RuleMessage } from '../../src/engine/types.ts';
import type { ModelRegistry } from '../../src/model-providers/registry.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/model-providers/types.ts';
import { chain, createEngine, testServices, type Link, type NodeSpec } from './helpers.ts';

let workspace = '';
before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'ai-presets-'));
});
after(() => rm(workspace, { recursive: true, force: true }));

/** `prepare` sets msg.name and metadata.city, for references from the AI node after it. */
const prepare: NodeSpec = {
  id: 'prepare',
  type: 'jsTransform',
  configuration: {
    jsScript: "metadata.city = 'Oslo'; return {msg: {name: 'Ann', topic: 'tides'}, metadata, msgType};",
  },
};

async function run(node: NodeSpec, input: RuleMessage, withPrepare = false): Promise<ModelRequest> {
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    id: 'scripted',
    demo: false,
    async *stream(request): AsyncIterable<ModelEvent> {
      // The loop adds to its message list after the call: keep the list as it was sent.
      requests.push({ ...request, messages: [...request.messages] });
      await Promise.resolve();
      yield { type: 'text-delta', text: 'ok' };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  const models = { get: () => provider, resolve: () => provider } as unknown as ModelRegistry;
  const globals = () => ({});
  const registry = createDefaultRegistry()
    .register(createAiLlmNode({ models, globals }))
    .register(
      createAiAgentNode({
        models,
        globals,
        workspace: () => Promise.resolve(workspace),
        chainDefinition: () => undefined,
      }),
    );
  const engine = createEngine({ registry, services: testServices() });
  const nodes = withPrepare ? [prepare, node] : [node];
  const links: Link[] = withPrepare ? [['prepare', 'Success', node.id]] : [];
  await engine.load(chain('c1', nodes, links));
  const result = await engine.execute('c1', input);
  await engine.close();
  assert.equal(result.outcome, 'success', result.error);
  const [request] = requests;
  assert.ok(request);
  return request;
}

test('ai/agent sends the system prompt, then its preset messages rendered, instead of the input data', async () => {
  const request = await run(
    {
      id: 'agent',
      type: 'ai/agent',
      configuration: {
        systemPrompt: 'Help ${prepare.msg.name}.',
        messages: [
          { role: 'assistant', content: 'Earlier answer' },
          {
            role: '',
            content:
              'Tell me about ${upper(prepare.msg.topic)} near ${prepare.metadata.city}, ${metadata.city}',
          },
        ],
      },
    },
    newMessage({ ignored: 'input' }, { metadata: { city: 'Oslo' } }),
    true,
  );
  assert.deepEqual(request.messages, [
    { role: 'system', content: 'Help Ann.' },
    { role: 'assistant', content: 'Earlier answer' },
    { role: 'user', content: 'Tell me about TIDES near Oslo, Oslo' },
  ]);
});

test('ai/agent: a preset system message replaces the system prompt; {"messages"} input wins over presets', async () => {
  const node: NodeSpec = {
    id: 'agent',
    type: 'ai/agent',
    configuration: {
      systemPrompt: 'configured prompt',
      messages: [
        { role: 'system', content: 'preset system' },
        { role: 'user', content: 'q ${msg.n}' },
      ],
    },
  };
  const preset = await run(node, newMessage({ n: 3 }));
  assert.deepEqual(preset.messages, [
    { role: 'system', content: 'preset system' },
    { role: 'user', content: 'q 3' },
  ]);
  const given = await run(node, newMessage({ messages: [{ role: 'user', content: 'hello' }] }));
  assert.deepEqual(given.messages, [
    { role: 'system', content: 'configured prompt' },
    { role: 'user', content: 'hello' },
  ]);
});

test('ai/agent: a preset through a node the run has not reached renders as "", as RuleGo', async () => {
  const request = await run(
    {
      id: 'agent',
      type: 'ai/agent',
      configuration: { messages: [{ role: 'user', content: 'x ${prepare.msg.name} y' }] },
    },
    newMessage({}),
  );
  assert.deepEqual(request.messages, [{ role: 'user', content: '' }]);
});

test('ai/agent refuses a preset message whose template does not compile, at load', async () => {
  await assert.rejects(
    run(
      { id: 'agent', type: 'ai/agent', configuration: { messages: [{ role: 'user', content: '${msg.}' }] } },
      newMessage({}),
    ),
    /messages\[0\]/,
  );
});

test('ai/llm messages read earlier node outputs; an unknown one stays as written, as RuleGo str templates', async () => {
  const request = await run(
    {
      id: 'llm',
      type: 'ai/llm',
      configuration: {
        systemPrompt: 'For ${prepare.metadata.city}',
        messages: [{ role: '', content: 'name ${prepare.msg.name}, ${missing.msg.x}, id ${id}' }],
      },
    },
    newMessage({}, { id: 'm-1' }),
    true,
  );
  assert.deepEqual(request.messages, [
    { role: 'system', content: 'For Oslo' },
    { role: 'user', content: 'name Ann, ${missing.msg.x}, id m-1' },
  ]);
});
