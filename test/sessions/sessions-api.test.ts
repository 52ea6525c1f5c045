// The session read endpoints the web UI uses: list an agent's sessions, read one's messages,
// rename and delete, validated, in the OpenAPI document, and scoped for api accounts.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const ADMIN_KEY = 'sk-admin-0123456789abcdef';
const CRM_KEY = 'sk-crm-0123456789abcdef';
const OTHER_KEY = 'sk-other-0123456789abcdef';

describe('session endpoints', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const chat = (sessionId: string, content: string, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      headers: key ? { authorization: `Bearer ${key}` } : {},
      payload: { model: 'main', sessionId, messages: [{ role: 'user', content }] },
    });
  const call = (method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key?: string) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });

  it('lists an agent sessions newest first, with title, preview, counts and times, paginated', async () => {
    t = await createTestApp();
    assert.equal((await chat('first', 'list files')).statusCode, 200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal((await chat('second', 'hello')).statusCode, 200);
    const listed = await call('GET', '/agents/main/sessions');
    assert.equal(listed.statusCode, 200, listed.body);
    const page = listed.json();
    assert.deepEqual(Object.keys(page).sort(), ['data', 'page', 'size', 'total']);
    assert.equal(page.total, 2);
    assert.deepEqual(
      page.data.map((session: { sessionId: string }) => session.sessionId),
      ['second', 'first'],
    );
    const first = page.data[1];
    assert.equal(first.key, 'agent:main:channel:api:scope:per_peer:first');
    assert.equal(first.title, null);
    assert.equal(first.preview, 'list files');
    assert.equal(first.channel, 'api');
    // "list files" makes the demo model call glob: the tool result is part of the answer, not a message.
    const stored = (await call('GET', `/agents/main/sessions/first/messages`)).json().data as Array<{
      role: string;
    }>;
    assert.ok(
      stored.some((message) => message.role === 'tool'),
      'the turn called a tool',
    );
    assert.equal(
      first.messageCount,
      stored.filter((message) => message.role === 'user' || message.role === 'assistant').length,
      'messageCount counts the user and assistant messages, not tool results',
    );
    assert.match(first.updatedAt, /^\d{4}-\d\d-\d\dT.*Z$/);
    const second = (await call('GET', '/agents/main/sessions?page=2&size=1')).json();
    assert.deepEqual(
      second.data.map((session: { sessionId: string }) => session.sessionId),
      ['first'],
    );
    assert.equal(second.total, 2);
  });

  it('reads a session messages oldest first, by sessionId or full key', async () => {
    t = await createTestApp();
    await chat('s1', 'list files');
    const bySessionId = await call('GET', '/agents/main/sessions/s1/messages');
    assert.equal(bySessionId.statusCode, 200, bySessionId.body);
    const messages = bySessionId.json().data;
    const { id, createdAt, ...first } = messages[0];
    assert.equal(typeof id, 'number', 'each message carries its stored id');
    assert.match(createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.deepEqual(first, { role: 'user', content: 'list files', parentId: 0 });
    assert.equal(messages[1].parentId, id, 'each message names the one it follows');
    // The demo model answers "list files" with a glob call: the call and its result are kept.
    const withCall = messages.find((message: { toolCalls?: unknown[] }) => message.toolCalls);
    assert.equal(withCall.role, 'assistant');
    assert.equal(withCall.toolCalls[0].name, 'glob');
    const result = messages.find((message: { role: string }) => message.role === 'tool');
    assert.equal(result.toolCallId, withCall.toolCalls[0].id);
    assert.equal(messages.at(-1).role, 'assistant');
    const key = encodeURIComponent('agent:main:channel:api:scope:per_peer:s1');
    const byKey = await call('GET', `/agents/main/sessions/${key}/messages`);
    assert.deepEqual(byKey.json().data, messages);
    const one = await call('GET', `/agents/main/sessions/${key}`);
    assert.equal(one.json().sessionId, 's1');
  });

  it('renames (and un-names) a session; the title is validated', async () => {
    t = await createTestApp();
    await chat('s1', 'hello');
    const renamed = await call('PATCH', '/agents/main/sessions/s1', { title: '  Greetings  ' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().title, 'Greetings');
    assert.equal((await call('GET', '/agents/main/sessions')).json().data[0].title, 'Greetings');
    const cleared = await call('PATCH', '/agents/main/sessions/s1', { title: null });
    assert.equal(cleared.json().title, null);
    const empty = await call('PATCH', '/agents/main/sessions/s1', { title: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().error, /title/);
    const long = await call('PATCH', '/agents/main/sessions/s1', { title: 'x'.repeat(201) });
    assert.equal(long.statusCode, 400);
    const missing = await call('PATCH', '/agents/main/sessions/s1', {});
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /title/);
  });

  it('deletes one session and leaves the others', async () => {
    t = await createTestApp();
    await chat('keep', 'one');
    await chat('drop', 'two');
    const removed = await call('DELETE', '/agents/main/sessions/drop');
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(removed.json(), {
      success: true,
      message: 'session "agent:main:channel:api:scope:per_peer:drop" deleted',
    });
    const left = (await call('GET', '/agents/main/sessions')).json();
    assert.deepEqual(
      left.data.map((session: { sessionId: string }) => session.sessionId),
      ['keep'],
    );
    const again = await call('GET', '/agents/main/sessions/drop/messages');
    assert.equal(again.statusCode, 404);
  });

  it('unknown agents, unknown sessions, other agents keys and bad parameters are clear errors', async () => {
    t = await createTestApp();
    await chat('s1', 'hello');
    const noAgent = await call('GET', '/agents/ghost/sessions');
    assert.equal(noAgent.statusCode, 404);
    assert.match(noAgent.json().error, /ghost/);
    const noSession = await call('GET', '/agents/main/sessions/nope/messages');
    assert.equal(noSession.statusCode, 404);
    assert.deepEqual(noSession.json(), { error: 'session "nope" of agent "main" not found' });
    // A key of another agent is not reachable under this one.
    const other = encodeURIComponent('agent:other:channel:api:scope:per_peer:s1');
    assert.equal((await call('DELETE', `/agents/main/sessions/${other}`)).statusCode, 404);
    const badId = await call('GET', '/agents/__proto__/sessions');
    assert.equal(badId.statusCode, 400);
    const badSize = await call('GET', '/agents/main/sessions?size=1000');
    assert.equal(badSize.statusCode, 400);
    assert.match(badSize.json().error, /size/);
    const longKey = await call('GET', `/agents/main/sessions/${'k'.repeat(501)}`);
    assert.equal(longKey.statusCode, 400);
  });

  it('are in the OpenAPI document', async () => {
    t = await createTestApp();
    const paths = (await call('GET', '/openapi.json')).json().paths;
    assert.ok(paths['/api/v1/agents/{agentId}/sessions'].get);
    assert.ok(paths['/api/v1/agents/{agentId}/sessions/{sessionKey}/messages'].get);
    assert.ok(paths['/api/v1/agents/{agentId}/sessions/{sessionKey}'].patch);
    assert.ok(paths['/api/v1/agents/{agentId}/sessions/{sessionKey}'].delete);
  });

  it('with auth on: users see every session, an api account only its own, no credential is a 401', async () => {
    t = await createTestApp({
      config: {
        security: { requireAuth: true, users: { admin: `a-long-password:${ADMIN_KEY}` } },
        channels: {
          api: {
            enabled: true,
            accounts: {
              crm: { name: 'CRM', api_key: CRM_KEY },
              other: { name: 'Other', api_key: OTHER_KEY },
            },
          },
        },
      },
    });
    assert.equal((await chat('shared', 'from admin', ADMIN_KEY)).statusCode, 200);
    assert.equal((await chat('shared', 'from crm', CRM_KEY)).statusCode, 200);
    assert.equal((await call('GET', '/agents/main/sessions')).statusCode, 401);

    const admin = (await call('GET', '/agents/main/sessions', undefined, ADMIN_KEY)).json();
    assert.equal(admin.total, 2);
    const crm = (await call('GET', '/agents/main/sessions', undefined, CRM_KEY)).json();
    assert.deepEqual(
      crm.data.map((session: { key: string }) => session.key),
      ['agent:main:channel:api:scope:per_account_channel_peer:crm:shared'],
    );
    const crmMessages = (
      await call('GET', '/agents/main/sessions/shared/messages', undefined, CRM_KEY)
    ).json();
    assert.equal(crmMessages.data[0].content, 'from crm');
    // Another account reaches neither the crm session nor the users' one, by id or by key.
    assert.equal((await call('GET', '/agents/main/sessions', undefined, OTHER_KEY)).json().total, 0);
    assert.equal(
      (await call('GET', '/agents/main/sessions/shared/messages', undefined, OTHER_KEY)).statusCode,
      404,
    );
    const crmKey = encodeURIComponent('agent:main:channel:api:scope:per_account_channel_peer:crm:shared');
    assert.equal(
      (await call('DELETE', `/agents/main/sessions/${crmKey}`, undefined, OTHER_KEY)).statusCode,
      404,
    );
    const userKey = encodeURIComponent('agent:main:channel:api:scope:per_peer:shared');
    assert.equal(
      (await call('GET', `/agents/main/sessions/${userKey}/messages`, undefined, CRM_KEY)).statusCode,
      404,
    );
    // Account keys still open nothing else.
    assert.equal((await call('GET', '/agents', undefined, CRM_KEY)).statusCode, 401);
  });
});
