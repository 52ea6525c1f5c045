import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('bindings', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('GET shows the config bindings with the contract names', async () => {
    t = await createTestApp({
      config: {
        bindings: [
          { agent_id: 'main', match: { channel: 'api', account_id: 'crm' } },
          { agent_id: 'main', match: { default: true } },
        ],
      },
    });
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/bindings' });
    assert.deepEqual(response.json(), {
      bindings: [
        { agentId: 'main', match: { channel: 'api', accountId: 'crm' } },
        { agentId: 'main', match: { default: true } },
      ],
    });
  });

  it('PUT replaces the bindings and writes the config file names', async () => {
    t = await createTestApp();
    const bindings = [
      { agentId: 'main', match: { channel: 'telegram', accountId: 'bot1', peer: 'chat-42' } },
      { agentId: 'main', match: { default: true } },
    ];
    const response = await t.app.inject({ method: 'PUT', url: '/api/v1/bindings', payload: { bindings } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { bindings });
    const file = await readFile(t.configPath, 'utf8');
    assert.match(file, /agent_id: main/);
    assert.match(file, /account_id: bot1/);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/bindings' })).json(), { bindings });
  });

  it('an unknown agent, an unknown channel or an accountId without channel is a 400, and nothing is written', async () => {
    t = await createTestApp();
    const before = await readFile(t.configPath, 'utf8');
    const ghost = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/bindings',
      payload: { bindings: [{ agentId: 'ghost', match: { default: true } }] },
    });
    assert.equal(ghost.statusCode, 400);
    assert.deepEqual(ghost.json(), { error: 'bindings.0.agentId: agent "ghost" not found' });
    const channel = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/bindings',
      payload: { bindings: [{ agentId: 'main', match: { channel: 'myspace' } }] },
    });
    assert.equal(channel.statusCode, 400);
    assert.match(channel.json().error, /^body\.bindings\.0\.match\.channel: /);
    const account = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/bindings',
      payload: { bindings: [{ agentId: 'main', match: { accountId: 'a' } }] },
    });
    assert.equal(account.statusCode, 400);
    assert.deepEqual(account.json(), { error: 'bindings.0.match: accountId needs channel' });
    assert.equal(await readFile(t.configPath, 'utf8'), before);
  });
});
