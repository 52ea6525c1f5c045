import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { agentDefinition } from '../fakes/builders.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const ADMIN_KEY = 'sk-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

async function withAgents(t: TestApp, ...ids: string[]): Promise<void> {
  for (const id of ids) {
    const created = await fetch(`${t.url}/api/v1/agents`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify(agentDefinition(id)),
    });
    assert.equal(created.status, 201, await created.text());
  }
}

async function call(
  t: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const response = await fetch(`${t.url}/api/v1${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function login(t: TestApp, username: string, password: string): Promise<string> {
  const answer = await call(t, 'POST', '/auth/login', {}, { username, password });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.token;
}

describe('users and roles', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const start = async () => {
    t = await createTestApp({
      listen: true,
      config: { security: { requireAuth: true, users: { admin: `admin-pass-1:${ADMIN_KEY}` } } },
    });
    await withAgents(t, 'alpha', 'beta');
  };

  it('an admin creates a member; the member sees only its agents and sessions and gets 403 elsewhere', async () => {
    await start();
    const created = await call(t, 'POST', '/users', admin, {
      name: 'ann',
      password: 'ann-password-1',
      role: 'member',
      agents: ['alpha'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body, {
      name: 'ann',
      role: 'member',
      disabled: false,
      agents: ['alpha'],
      hasApiKey: false,
    });
    const file = await readFile(t.configPath, 'utf8');
    assert.doesNotMatch(file, /ann-password-1/, 'the password is stored hashed');
    assert.match(file, /user_access:/);

    const list = await call(t, 'GET', '/users', admin);
    assert.deepEqual(
      list.body.data.map((user: { name: string }) => user.name),
      ['admin', 'ann'],
    );
    assert.equal(list.body.data[0].role, 'admin');

    // The admin chats on alpha in session s1: the member must not see it.
    const adminChat = await call(t, 'POST', '/chat/completions', admin, {
      model: 'alpha',
      sessionId: 's1',
      messages: [{ role: 'user', content: 'from admin' }],
    });
    assert.equal(adminChat.status, 200, JSON.stringify(adminChat.body));

    const ann = bearer(await login(t, 'ann', 'ann-password-1'));
    const me = await call(t, 'GET', '/auth/me', ann);
    assert.deepEqual(me.body, { name: 'ann', role: 'member', agents: ['alpha'], requireAuth: true });
    const agents = await call(t, 'GET', '/agents', ann);
    assert.equal(agents.status, 200);
    assert.deepEqual(
      agents.body.data.map((agent: { ruleChain: { id: string } }) => agent.ruleChain.id),
      ['alpha'],
    );

    const chat = await call(t, 'POST', '/chat/completions', ann, {
      model: 'alpha',
      sessionId: 's1',
      messages: [{ role: 'user', content: 'from ann' }],
    });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const sessions = await call(t, 'GET', '/agents/alpha/sessions', ann);
    assert.equal(sessions.body.total, 1);
    assert.equal(sessions.body.data[0].sessionId, '@ann:s1');
    const messages = await call(t, 'GET', '/agents/alpha/sessions/s1/messages', ann);
    assert.deepEqual(
      messages.body.data
        .filter((m: { role: string }) => m.role === 'user')
        .map((m: { content: string }) => m.content),
      ['from ann'],
    );
    // The admin's session of the same id is another one, out of the member's reach.
    const adminSessions = await call(t, 'GET', '/agents/alpha/sessions', admin);
    assert.equal(adminSessions.body.total, 2);
    const adminKey = adminSessions.body.data.find(
      (s: { scope: string }) => s.scope !== 'per_account_channel_peer',
    ).key;
    assert.equal(
      (await call(t, 'GET', `/agents/alpha/sessions/${encodeURIComponent(adminKey)}`, ann)).status,
      404,
    );

    for (const [method, path] of [
      ['GET', '/config'],
      ['PUT', '/config'],
      ['GET', '/channels'],
      ['GET', '/users'],
      ['PUT', '/users/admin'],
      ['GET', '/rules'],
      ['GET', '/cron'],
      ['GET', '/security'],
      ['POST', '/agents'],
      ['GET', '/agents/beta'],
      ['GET', '/agents/beta/sessions'],
    ] as const) {
      const answer = await call(t, method, path, ann, method === 'GET' ? undefined : {});
      assert.equal(answer.status, 403, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.ok(answer.body.error);
    }
    const beta = await call(t, 'POST', '/chat/completions', ann, {
      model: 'beta',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(beta.status, 403);

    // Its own API key works like its token, with the same limits.
    const key = await call(t, 'POST', '/auth/api-key', ann);
    assert.equal(key.status, 200);
    assert.equal((await call(t, 'GET', '/agents/alpha/sessions', bearer(key.body.apiKey))).body.total, 1);
    assert.equal((await call(t, 'GET', '/config', bearer(key.body.apiKey))).status, 403);
  });

  it('a disabled or deleted user loses its tokens and keys at once; a password reset voids old tokens', async () => {
    await start();
    await call(t, 'POST', '/users', admin, { name: 'bob', password: 'bob-password-1', role: 'admin' });
    const token = bearer(await login(t, 'bob', 'bob-password-1'));
    const key = bearer((await call(t, 'POST', '/auth/api-key', token)).body.apiKey);
    assert.equal((await call(t, 'GET', '/config', token)).status, 200);
    assert.equal((await call(t, 'GET', '/config', key)).status, 200);

    const disabled = await call(t, 'PUT', '/users/bob', admin, { disabled: true });
    assert.equal(disabled.body.disabled, true);
    assert.equal((await call(t, 'GET', '/config', token)).status, 401);
    assert.equal((await call(t, 'GET', '/config', key)).status, 401);
    assert.equal(
      (await call(t, 'POST', '/auth/login', {}, { username: 'bob', password: 'bob-password-1' })).status,
      401,
    );

    await call(t, 'PUT', '/users/bob', admin, { disabled: false });
    assert.equal((await call(t, 'GET', '/config', token)).status, 200);
    assert.equal((await call(t, 'GET', '/config', key)).status, 200);

    const reset = await call(t, 'PUT', '/users/bob', admin, { password: 'bob-password-2' });
    assert.equal(reset.status, 200);
    assert.equal((await call(t, 'GET', '/config', token)).status, 401, 'the old token is void');
    assert.equal((await call(t, 'GET', '/config', key)).status, 200, 'the API key is kept');
    const fresh = bearer(await login(t, 'bob', 'bob-password-2'));

    const removed = await call(t, 'DELETE', '/users/bob', admin);
    assert.equal(removed.status, 200);
    assert.equal((await call(t, 'GET', '/config', fresh)).status, 401);
    assert.equal((await call(t, 'GET', '/config', key)).status, 401);
    assert.equal((await call(t, 'GET', '/users/bob', admin)).status, 404);
  });

  it('validates input and never leaves the server without an enabled admin', async () => {
    await start();
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', '/users', { name: 'x', password: 'short' }, 400, /password/],
      ['POST', '/users', { name: 'x', password: 'has:colon-1' }, 400, /":"/],
      ['POST', '/users', { name: 'bad name', password: 'password-1' }, 400, /name/],
      ['POST', '/users', { name: 'x', password: 'password-1', role: 'root' }, 400, /role/],
      ['POST', '/users', { name: 'x', password: 'password-1', agents: ['ghost'] }, 400, /ghost/],
      ['POST', '/users', { name: 'admin', password: 'password-1' }, 409, /already exists/],
      ['PUT', '/users/admin', {}, 400, /at least one/],
      ['PUT', '/users/ghost', { disabled: true }, 404, /not found/],
      ['PUT', '/users/admin', { disabled: true }, 409, /last enabled admin/],
      ['PUT', '/users/admin', { role: 'member' }, 409, /last enabled admin/],
      ['DELETE', '/users/admin', undefined, 409, /last enabled admin/],
    ];
    for (const [method, path, body, status, error] of cases) {
      const answer = await call(t, method, path, admin, body);
      assert.equal(
        answer.status,
        status,
        `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`,
      );
      assert.match(answer.body.error, error);
    }
  });

  it('requireAuth is switched over REST, refused while the admin password is the default', async () => {
    t = await createTestApp({ listen: true });
    const initial = await call(t, 'GET', '/security', {});
    assert.deepEqual(initial.body, { requireAuth: false, defaultAdminPassword: true });
    const refused = await call(t, 'PUT', '/security', {}, { requireAuth: true });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /default/);
    assert.equal((await call(t, 'PUT', '/security', {}, { requireAuth: 'yes' })).status, 400);
    // A file without security.users has the default admin: adding a user keeps it.
    assert.equal(
      (await call(t, 'POST', '/users', {}, { name: 'ann', password: 'ann-password-1' })).status,
      201,
    );
    const names = (await call(t, 'GET', '/users', {})).body.data.map((user: { name: string }) => user.name);
    assert.deepEqual(names, ['admin', 'ann']);
    await call(t, 'PUT', '/users/admin', {}, { password: 'a-better-password' });
    const on = await call(t, 'PUT', '/security', {}, { requireAuth: true });
    assert.deepEqual(on.body, { requireAuth: true, defaultAdminPassword: false });
    assert.equal((await call(t, 'GET', '/config', {})).status, 401);
    const token = bearer(await login(t, 'admin', 'a-better-password'));
    assert.equal((await call(t, 'GET', '/config', token)).status, 200);
  });
});
