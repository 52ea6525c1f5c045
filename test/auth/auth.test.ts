import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { AuthService } from '../../src/auth/auth-service.ts';
import { hashPassword } from '../../src/core/secrets.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

async function median(times: number, run: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(times / 2)] as number;
}

async function login(app: FastifyInstance, username = 'admin', password = 'changeme') {
  return app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
}

async function token(app: FastifyInstance, username = 'admin', password = 'changeme'): Promise<string> {
  const response = await login(app, username, password);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().token;
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

describe('authentication', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('login returns a JWT and its expiry', async () => {
    t = await createTestApp();
    const response = await login(t.app);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.token.split('.').length, 3);
    const expires = Date.parse(body.expireAt) - Date.now();
    assert.ok(expires > 23 * 3600_000 && expires <= 24 * 3600_000, `expiry in ${expires} ms`);
  });

  it('honours security.jwtExpire', async () => {
    t = await createTestApp({ config: { security: { jwtExpire: '30m' } } });
    const expires = Date.parse((await login(t.app)).json().expireAt) - Date.now();
    assert.ok(expires > 29 * 60_000 && expires <= 30 * 60_000);
  });

  it('wrong password and unknown user get the same 401', async () => {
    t = await createTestApp();
    const wrong = await login(t.app, 'admin', 'nope');
    const unknown = await login(t.app, 'ghost', 'nope');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(wrong.json(), { error: 'invalid username or password' });
    assert.deepEqual(unknown.json(), wrong.json());
  });

  it('rate limits login attempts per client with 429', async () => {
    t = await createTestApp({ config: { security: { loginRateLimit: 3 } } });
    for (let i = 0; i < 3; i++) assert.equal((await login(t.app, 'admin', 'bad')).statusCode, 401);
    const limited = await login(t.app);
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().error, /too many login attempts/);
    assert.ok(Number(limited.headers['retry-after']) > 0);
  });

  it('api-key endpoints need a JWT: none, an API key and a bad token get 401', async () => {
    t = await createTestApp({ config: { security: { users: { admin: 'changeme:sk-user-key-1' } } } });
    for (const headers of [{}, bearer('sk-user-key-1'), bearer('a.b.c')]) {
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/api-key', headers });
      assert.equal(response.statusCode, 401);
      assert.ok(response.json().error);
    }
  });

  it('GET api-key returns the current key, POST replaces it and the old key stops working', async () => {
    t = await createTestApp({
      config: { security: { requireAuth: true, users: { admin: 'changeme:sk-old-key' } } },
    });
    const jwt = await token(t.app);
    const current = await t.app.inject({ method: 'GET', url: '/api/v1/auth/api-key', headers: bearer(jwt) });
    assert.deepEqual(current.json(), { apiKey: 'sk-old-key' });
    const replaced = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/api-key',
      headers: bearer(jwt),
    });
    const next = replaced.json().apiKey as string;
    assert.match(next, /^sk-/);
    assert.notEqual(next, 'sk-old-key');
    const old = await t.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer('sk-old-key') });
    assert.equal(old.statusCode, 401);
    const fresh = await t.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(next) });
    assert.equal(fresh.statusCode, 200);
    assert.match(await readFile(t.configPath, 'utf8'), new RegExp(`admin: changeme:${next}`));
  });

  it('GET api-key generates a key when the user has none', async () => {
    t = await createTestApp();
    const jwt = await token(t.app);
    const first = (
      await t.app.inject({ method: 'GET', url: '/api/v1/auth/api-key', headers: bearer(jwt) })
    ).json();
    const second = (
      await t.app.inject({ method: 'GET', url: '/api/v1/auth/api-key', headers: bearer(jwt) })
    ).json();
    assert.match(first.apiKey, /^sk-[A-Za-z0-9_-]{20,}$/);
    assert.equal(second.apiKey, first.apiKey);
  });

  it('changing the password hashes it in the file and voids earlier tokens', async () => {
    t = await createTestApp({ config: { security: { requireAuth: true } } });
    const jwt = await token(t.app);
    const wrongOld = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/auth/password',
      headers: bearer(jwt),
      payload: { oldPassword: 'bad', newPassword: 'a-new-password' },
    });
    assert.equal(wrongOld.statusCode, 401);
    assert.deepEqual(wrongOld.json(), { error: 'old password is wrong' });
    const changed = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/auth/password',
      headers: bearer(jwt),
      payload: { oldPassword: 'changeme', newPassword: 'a-new-password' },
    });
    assert.equal(changed.statusCode, 200);
    const file = await readFile(t.configPath, 'utf8');
    assert.match(file, /admin: scrypt\$/);
    assert.doesNotMatch(file, /a-new-password/);
    const stale = await t.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(jwt) });
    assert.equal(stale.statusCode, 401);
    assert.equal((await login(t.app, 'admin', 'changeme')).statusCode, 401);
    const fresh = await token(t.app, 'admin', 'a-new-password');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(fresh) })).statusCode,
      200,
    );
  });

  it('a too-short new password is a 400 naming the field', async () => {
    t = await createTestApp();
    const jwt = await token(t.app);
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/auth/password',
      headers: bearer(jwt),
      payload: { oldPassword: 'changeme', newPassword: 'short' },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /^body\.newPassword: must be at least 8 characters/);
  });

  it('with requireAuth off, management routes work without credentials', async () => {
    t = await createTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/config' });
    assert.equal(response.statusCode, 200);
  });

  it("a user's API key acts as that user; an api-channel account key is refused outside chat", async () => {
    t = await createTestApp({
      config: {
        security: { requireAuth: true, users: { admin: 'changeme:sk-admin' } },
        channels: { api: { accounts: { app1: { api_key: 'sk-account-app1' } } } },
      },
    });
    const asUser = await t.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer('sk-admin') });
    assert.equal(asUser.statusCode, 200);
    const asAccount = await t.app.inject({
      method: 'GET',
      url: '/api/v1/config',
      headers: bearer('sk-account-app1'),
    });
    assert.equal(asAccount.statusCode, 401);
    assert.deepEqual(asAccount.json(), { error: 'this API key is only valid for the chat endpoint' });
  });

  it('with requireAuth on, every route but /health and login refuses a request without credentials', async () => {
    t = await createTestApp({ config: { security: { requireAuth: true } } });
    const routes = t.app.registeredRoutes;
    assert.ok(routes.length >= 15, `only ${routes.length} routes registered`);
    for (const route of routes) {
      const url = route.url.replace(/:[A-Za-z]+/g, 'x').replace('*', 'x');
      const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
      const response = await t.app.inject({
        method: route.method as 'GET',
        url,
        ...(hasBody ? { payload: {} } : {}),
      });
      // The only public routes: health, readiness (for load balancers), login, and the static web UI
      // (its API calls carry the token).
      if (['/health', '/ready', '/api/v1/auth/login', '/', '/ui', '/ui/', '/ui/x'].includes(url)) {
        assert.notEqual(response.statusCode, 401, `${route.method} ${route.url}`);
      } else if (url.endsWith('/.well-known/agent-card.json')) {
        // A2A agent cards are discovery documents; they declare the Bearer scheme the endpoints need.
        // The server's card lists no agent without credentials; agent "x" does not exist.
        assert.equal(response.statusCode, url === '/.well-known/agent-card.json' ? 200 : 404, url);
      } else if (url === '/webhooks/x/x') {
        // Platform callbacks carry no JWT: their adapter checks the platform's signature. No
        // account "x" exists, so nothing answers here.
        assert.equal(response.statusCode, 404, `${route.method} ${route.url}`);
      } else {
        assert.equal(
          response.statusCode,
          401,
          `${route.method} ${route.url} answered ${response.statusCode}`,
        );
        assert.ok(response.json().error);
      }
    }
  });

  it('a failed login costs the same whether the user is unknown, has a plain-text or a hashed password', async () => {
    const hashed = await hashPassword('hashed-password');
    t = await createTestApp({
      config: { security: { loginRateLimit: 1000, users: { plain: 'plain-password', hashed } } },
    });
    const auth = t.auth;
    const attempt = (username: string) => () => auth.login(username, 'wrong-password').catch(() => undefined);
    await attempt('plain')();
    // One scrypt (tens of ms) on every path; a plain-text comparison alone took 5 ms, an order less.
    const unknown = await median(7, attempt('nobody'));
    const plain = await median(7, attempt('plain'));
    const stored = await median(7, attempt('hashed'));
    for (const [name, value] of Object.entries({ plain, stored })) {
      const ratio = value / unknown;
      assert.ok(
        ratio > 0.4 && ratio < 2.5,
        `${name}: ${value.toFixed(1)} ms vs unknown ${unknown.toFixed(1)} ms`,
      );
    }
  });

  it("a token's password version is keyed with the server secret, not derivable from the password", async () => {
    t = await createTestApp();
    const first = claims(await token(t.app));
    const other = new AuthService(t.store, 'another-secret-that-is-long-enough-98765');
    const second = claims((await other.login('admin', 'changeme')).token);
    assert.equal(typeof first['pwv'], 'string');
    assert.notEqual(first['pwv'], second['pwv']);
  });

  it('prototype names are unknown users: 401, never a 500', async () => {
    t = await createTestApp({ config: { security: { loginRateLimit: 1000 } } });
    for (const username of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const response = await login(t.app, username, 'x');
      assert.equal(response.statusCode, 401, `${username}: ${response.body}`);
      assert.deepEqual(response.json(), { error: 'invalid username or password' });
    }
  });
});
