import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

describe('HTTP behaviour common to every route', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({
      config: { server: { body_limit: 2048 } },
      before: (app) => {
        app.get('/api/v1/test/boom', async () => {
          throw new Error('secret internal detail');
        });
      },
    });
  });
  after(() => t.close());

  it('GET /health answers 200 text/plain OK', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    assert.equal(response.body, 'OK');
  });

  it('malformed JSON is a 400 with a clear error', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: 'request body is not valid JSON' });
  });

  it('a schema violation is a 400 naming the field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 5 },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /^body\.password: /);
  });

  it('a missing required field is a 400 naming it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin' },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /password/);
  });

  it('a wrong content type is a 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/xml' },
      payload: '<login/>',
    });
    assert.equal(response.statusCode, 415);
    assert.deepEqual(response.json(), { error: 'unsupported content type; send application/json' });
  });

  it('a body over the limit is a 413', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'x'.repeat(4096) },
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(response.json(), { error: 'request body is too large (limit 2048 bytes)' });
  });

  it('an unknown route is a 404 with a JSON error', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here?x=1' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { error: 'no route for GET /api/v1/nothing-here' });
  });

  it('an unexpected failure is a 500 internal error without the cause', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/test/boom' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { error: 'internal error' });
    assert.doesNotMatch(response.body, /secret internal detail/);
  });

  it('GET /api/v1/openapi.json is an OpenAPI 3.1 document covering every route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    for (const path of [
      '/health',
      '/api/v1/auth/login',
      '/api/v1/config',
      '/api/v1/config/models/providers/{name}',
    ]) {
      assert.ok(document.paths[path], `missing ${path}`);
    }
    // Every registered route but the hidden ones (the document itself, the static web UI) is described.
    const hidden = new Set(['/api/v1/openapi.json', '/', '/ui', '/ui/', '/ui/*']);
    for (const route of t.app.registeredRoutes) {
      if (hidden.has(route.url)) continue;
      // A wildcard (`/endpoints/*`, a chain's own routes) is documented as `{*}`.
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\/\*$/, '/{*}');
      assert.ok(
        document.paths[path]?.[route.method.toLowerCase()],
        `${route.method} ${route.url} is not documented`,
      );
    }
    const login = document.paths['/api/v1/auth/login'].post;
    assert.deepEqual(login.requestBody.content['application/json'].schema.required, ['username', 'password']);
  });
});

describe('bodies', () => {
  it('an empty body with a JSON content type is no body, not malformed JSON', async () => {
    const t = await createTestApp();
    try {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/rules',
        payload: chainDefinition('gone', [{ id: 'e', type: 'end' }], [], { name: 'g' }),
      });
      const removed = await t.app.inject({
        method: 'DELETE',
        url: '/api/v1/rules/gone',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(removed.statusCode, 200, removed.body);
      const missing = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(missing.statusCode, 400);
      assert.match(missing.json().error, /^body: /);
      const poisoned = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"username":"a","password":"b","__proto__":{"admin":true}}',
      });
      assert.equal(poisoned.statusCode, 400, 'prototype poisoning is still refused');
    } finally {
      await t.close();
    }
  });
});
