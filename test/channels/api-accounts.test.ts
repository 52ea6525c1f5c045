import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('api channel accounts', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('creating an account without a key generates one, shown once; views show hasSecret only', async () => {
    t = await createTestApp({
      config: { security: { requireAuth: true, users: { admin: 'changeme:sk-admin-0000' } } },
    });
    const headers = { authorization: 'Bearer sk-admin-0000' };
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/api/accounts',
      headers,
      payload: { id: 'crm', name: 'CRM', dm_policy: 'allow', group_policy: 'disabled' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.apiKey, /^sk-/);
    assert.equal(body.status.state, 'connected');
    assert.ok(!Number.isNaN(Date.parse(body.status.since)));
    assert.deepEqual(
      { ...body, apiKey: undefined, status: undefined },
      {
        id: 'crm',
        name: 'CRM',
        description: '',
        enabled: true,
        dmPolicy: 'allow',
        groupPolicy: 'disabled',
        allowFrom: [],
        appId: '',
        hasSecret: true,
        secretsSet: [],
        apiKey: undefined,
        status: undefined,
      },
    );
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/channels/api/accounts/crm', headers });
    assert.equal(read.json().hasSecret, true);
    assert.doesNotMatch(read.body, new RegExp(body.apiKey));
    const platform = (await t.app.inject({ method: 'GET', url: '/api/v1/channels/api', headers })).json();
    assert.equal(platform.enabled, true);
    assert.deepEqual(Object.keys(platform.accounts), ['crm']);
    const all = (await t.app.inject({ method: 'GET', url: '/api/v1/channels', headers })).json();
    assert.ok(all.platforms.api.accounts.crm);
    assert.deepEqual(Object.keys(all.platforms).sort(), [
      'api',
      'dingtalk',
      'discord',
      'feishu',
      'feishu_webhook',
      'slack',
      'telegram',
      'wecom',
    ]);
    const chat = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      headers: { authorization: `Bearer ${body.apiKey}` },
      payload: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(chat.statusCode, 200, chat.body);
    assert.match(chat.json().choices[0].message.content, /\[demo model\]/);
  });

  it('a disabled account key is refused; enabling it again restores access', async () => {
    t = await createTestApp({
      config: { security: { requireAuth: true, users: { admin: 'changeme:sk-admin-0000' } } },
    });
    const headers = { authorization: 'Bearer sk-admin-0000' };
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/api/accounts',
      headers,
      payload: { id: 'bot', api_key: 'sk-bot-key-0123456789' },
    });
    const chat = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        headers: { authorization: 'Bearer sk-bot-key-0123456789' },
        payload: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
      });
    assert.equal((await chat()).statusCode, 200);
    const disabled = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/api/accounts/bot',
      headers,
      payload: { enabled: false },
    });
    assert.equal(disabled.json().enabled, false);
    assert.equal((await chat()).statusCode, 401);
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/api/accounts/bot',
      headers,
      payload: { enabled: true },
    });
    assert.equal((await chat()).statusCode, 200);
    const file = await readFile(t.configPath, 'utf8');
    assert.match(file, /api_key: sk-bot-key-0123456789/);
  });

  it('duplicate 409, unknown account 404, unknown platform 404, bad body 400, delete', async () => {
    t = await createTestApp();
    const url = '/api/v1/channels/api/accounts';
    await t.app.inject({ method: 'POST', url, payload: { id: 'a1' } });
    const duplicate = await t.app.inject({ method: 'POST', url, payload: { id: 'a1' } });
    assert.equal(duplicate.statusCode, 409);
    assert.deepEqual(duplicate.json(), { error: 'account "a1" already exists on platform "api"' });
    const unknown = await t.app.inject({ method: 'GET', url: `${url}/nope` });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'account "nope" not found on platform "api"' });
    const platform = await t.app.inject({ method: 'GET', url: '/api/v1/channels/myspace' });
    assert.equal(platform.statusCode, 404);
    assert.match(platform.json().error, /unknown channel platform "myspace"/);
    const bad = await t.app.inject({ method: 'POST', url, payload: { id: 'a2', dm_policy: 'sometimes' } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /^body\.dm_policy: /);
    const deleted = await t.app.inject({ method: 'DELETE', url: `${url}/a1` });
    assert.equal(deleted.statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: `${url}/a1` })).statusCode, 404);
  });

  it('a binding given at creation is written to bindings', async () => {
    t = await createTestApp();
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/api/accounts',
      payload: { id: 'shop', binding: { agentId: 'main', match: { default: false } } },
    });
    assert.deepEqual(t.store.current.bindings, [
      { agent_id: 'main', match: { default: false, channel: 'api', account_id: 'shop' } },
    ]);
  });

  it('two api accounts using the same sessionId get separate conversations', async () => {
    t = await createTestApp({
      config: {
        security: { requireAuth: true },
        channels: {
          api: {
            accounts: {
              appa: { api_key: 'sk-app-a-000000000000' },
              appb: { api_key: 'sk-app-b-000000000000' },
            },
          },
        },
      },
    });
    const chat = async (key: string, sessionId: string, content: string) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        payload: { model: 'main', sessionId, messages: [{ role: 'user', content }] },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    await chat('sk-app-a-000000000000', 'shared', 'alpha private text of app A');
    const intruding = await chat('sk-app-b-000000000000', 'shared', 'hello');
    const fresh = await chat('sk-app-b-000000000000', 'fresh', 'hello');
    assert.equal(
      intruding.usage.prompt_tokens,
      fresh.usage.prompt_tokens,
      "B's prompt held none of A's turn",
    );
    const key = (account: string) =>
      `agent:main:channel:api:scope:per_account_channel_peer:${account}:shared`;
    const a = JSON.stringify(await t.services.sessions.load(key('appa')));
    const b = JSON.stringify(await t.services.sessions.load(key('appb')));
    assert.match(a, /alpha private text/);
    assert.doesNotMatch(a, /hello/);
    assert.match(b, /hello/);
    assert.doesNotMatch(b, /alpha/);
  });

  it('the first account of a platform that has no section in the file is created (201)', async () => {
    t = await createTestApp();
    const before = await readFile(t.configPath, 'utf8');
    assert.doesNotMatch(before, /telegram/);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/telegram/accounts',
      payload: { id: 'bot1', app_secret: '123456:telegram-token-value', enabled: false },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().hasSecret, true);
    const written = await readFile(t.configPath, 'utf8');
    assert.match(written, /telegram:\n\s+enabled: true\n\s+accounts:\n\s+bot1:/);
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/channels/telegram/accounts/bot1' });
    assert.equal(read.statusCode, 200);
  });
});
