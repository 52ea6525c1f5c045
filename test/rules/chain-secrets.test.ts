// Secrets in agent and chain definitions are write-only: shown as set, kept when a definition is saved
// back unchanged, replaced only when a new value is sent.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const AGENT_KEY = 'sk-agent-key-0f3c9a';
const MCP_TOKEN = 'mcp-env-token-77aa';
const MCP_HEADER = 'Bearer mcp-header-secret-51';
const REST_PASSWORD = 'rest-password-9e2d';

function secretAgent(url: string) {
  return agentDefinition('vault', {
    url,
    key: AGENT_KEY,
    model: 'fake-model',
    tools: [
      {
        type: 'mcp',
        name: 'files',
        config: {
          server: 'http://127.0.0.1:9/mcp',
          env: { API_TOKEN: MCP_TOKEN },
          headers: { Authorization: MCP_HEADER, 'Content-Type': 'application/json' },
        },
      },
    ],
  });
}

const restChain = {
  ruleChain: { id: 'hook', name: 'Hook' },
  metadata: {
    nodes: [
      {
        id: 'call',
        type: 'restApiCall',
        configuration: {
          restEndpointUrlPattern: 'http://127.0.0.1:9/hook',
          requestMethod: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': REST_PASSWORD },
        },
      },
    ],
    connections: [],
  },
};

function readStored(t: TestApp, path: string): Promise<string> {
  return readFile(join(t.dir, 'data', path), 'utf8');
}

describe('secrets in agent and chain definitions', () => {
  let t: TestApp;
  let upstream: FakeUpstream;
  afterEach(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('never answers a secret, shows it as set, and keeps it when the view is saved back', async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: secretAgent(upstream.url) });
    assert.equal(created.statusCode, 201, created.body);
    for (const body of [
      created.body,
      (await t.app.inject({ url: '/api/v1/agents/vault' })).body,
      (await t.app.inject({ url: '/api/v1/agents' })).body,
      (await t.app.inject({ url: '/api/v1/rules/vault' })).body,
    ]) {
      for (const secret of [AGENT_KEY, MCP_TOKEN, MCP_HEADER]) assert.ok(!body.includes(secret), body);
    }
    const view = (await t.app.inject({ url: '/api/v1/agents/vault' })).json();
    const node = view.metadata.nodes[0].configuration;
    assert.equal(node.key, '***');
    assert.equal(node.tools[0].config.env.API_TOKEN, '***');
    assert.equal(node.tools[0].config.headers.Authorization, '***');
    assert.equal(node.tools[0].config.headers['Content-Type'], 'application/json');
    assert.equal(node.url, upstream.url, 'a URL without credentials is shown');

    const { status: _status, ...definition } = view;
    definition.ruleChain.name = 'Vault, renamed';
    const saved = await t.app.inject({ method: 'PUT', url: '/api/v1/agents/vault', payload: definition });
    assert.equal(saved.statusCode, 200, saved.body);
    const stored = await readStored(t, 'agents/vault/agent.json');
    for (const secret of [AGENT_KEY, MCP_TOKEN, MCP_HEADER]) assert.ok(stored.includes(secret), 'kept on disk');
    assert.ok(stored.includes('Vault, renamed'));

    // The kept key is the one the model call uses.
    const chat = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'vault', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(chat.statusCode, 200, chat.body);
    assert.equal(upstream.lastHeaders?.authorization, `Bearer ${AGENT_KEY}`);
  });

  it('replaces a secret only when a new value is sent', async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: secretAgent(upstream.url) });
    const { status: _status, ...definition } = (await t.app.inject({ url: '/api/v1/agents/vault' })).json();
    definition.metadata.nodes[0].configuration.key = 'sk-new-key-123';
    const saved = await t.app.inject({ method: 'PUT', url: '/api/v1/agents/vault', payload: definition });
    assert.equal(saved.statusCode, 200, saved.body);
    assert.equal(saved.json().metadata.nodes[0].configuration.key, '***');
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'vault', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(upstream.lastHeaders?.authorization, 'Bearer sk-new-key-123');
  });

  it('refuses the mark where nothing is stored behind it, naming the place', async () => {
    t = await createTestApp();
    const agent = secretAgent('http://127.0.0.1:9/v1');
    (agent.metadata.nodes[0]!.configuration as Record<string, unknown>)['key'] = '***';
    const refused = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: agent });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error, /metadata\.nodes\.\[id=agent\]\.configuration\.key: "\*\*\*" stands for a stored secret/);
  });

  it('hides secret headers of a rule chain node and shows references as they are', async () => {
    t = await createTestApp();
    const chain = structuredClone(restChain);
    (chain.metadata.nodes[0]!.configuration.headers as Record<string, string>)['Authorization'] =
      '${global.models.providers.openai.api_key}';
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain });
    assert.equal(created.statusCode, 201, created.body);
    const view = (await t.app.inject({ url: '/api/v1/rules/hook' })).json();
    const headers = view.metadata.nodes[0].configuration.headers;
    assert.deepEqual(headers, {
      'Content-Type': 'application/json',
      'X-Api-Key': '***',
      Authorization: '${global.models.providers.openai.api_key}',
    });
    const listed = (await t.app.inject({ url: '/api/v1/rules' })).body;
    assert.ok(!listed.includes(REST_PASSWORD));
    const { status: _status, ...definition } = view;
    assert.equal((await t.app.inject({ method: 'PUT', url: '/api/v1/rules/hook', payload: definition })).statusCode, 200);
    assert.ok((await readStored(t, 'rules/hook.json')).includes(REST_PASSWORD));
  });
});
