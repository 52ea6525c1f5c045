import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { installAuth } from '../../src/http/auth-hook.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import type { AuthService } from '../../src/auth/auth-service.ts';
import { registerStaticUi, UI_CONTENT_SECURITY_POLICY } from '../../src/http/static-ui.ts';

const webDir = fileURLToPath(new URL('../../web', import.meta.url));
const NOT_FOUND = 'not found: the web UI has only index.html, app.js and style.css';

/** A GET that sends `path` byte for byte (node:http does not normalize it). */
function rawGet(base: string, path: string): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(base), { path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => (body += part));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type']),
          body,
        }),
      );
    });
    request.on('error', reject);
  });
}

describe('web UI static files under /ui/', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    registerStaticUi(app, webDir);
    await app.ready();
  });
  after(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  it('GET /ui redirects (302) to /ui/', async () => {
    const response = await get('/ui');
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/ui/');
  });

  it('GET / redirects (302) to /ui/', async () => {
    const response = await get('/');
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/ui/');
  });

  it('GET /ui/ serves index.html referencing app.js and style.css', async () => {
    const response = await get('/ui/');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8$/);
    assert.equal(response.body, await readFile(`${webDir}/index.html`, 'utf8'));
    assert.match(response.body, /<script type="module" src="app\.js"><\/script>/);
    assert.match(response.body, /<link rel="stylesheet" href="style\.css"/);
  });

  it('GET /ui/app.js is text/javascript and GET /ui/style.css is text/css', async () => {
    const script = await get('/ui/app.js');
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript; charset=utf-8$/);
    assert.equal(script.body, await readFile(`${webDir}/app.js`, 'utf8'));
    const style = await get('/ui/style.css');
    assert.equal(style.statusCode, 200);
    assert.match(String(style.headers['content-type']), /^text\/css; charset=utf-8$/);
  });

  it('every UI file carries the strict CSP, nosniff and cache-control: no-cache', async () => {
    for (const url of ['/ui/', '/ui/app.js', '/ui/style.css']) {
      const response = await get(url);
      assert.equal(response.headers['content-security-policy'], UI_CONTENT_SECURITY_POLICY, url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(response.headers['cache-control'], 'no-cache', url);
    }
    assert.equal(
      UI_CONTENT_SECURITY_POLICY,
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    );
  });

  it('a request repeating the ETag gets 304 with no body', async () => {
    const first = await get('/ui/app.js');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const again = await get('/ui/app.js', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const stale = await get('/ui/app.js', { 'if-none-match': '"stale"' });
    assert.equal(stale.statusCode, 200);
  });

  it('an unknown file is a 404 JSON error', async () => {
    const response = await get('/ui/secret.txt');
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(response.json(), { error: NOT_FOUND });
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
  });

  // Raw HTTP, not inject(): inject() (like a browser) resolves "." and "%2e%2e" segments before sending,
  // and the point is what the server does with the bytes an attacker can send.
  it('path traversal attempts are 404 JSON from the UI route and never read other files', async () => {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    for (const path of [
      '/ui/..%2Fpackage.json',
      '/ui/%2e%2e/config.yaml',
      '/ui/%2e%2e%2fpackage.json',
      '/ui/../package.json',
      '/ui/..%5Cpackage.json',
      '/ui/./app.js',
      '/ui/app.js%00',
      '/ui/nested/app.js',
    ]) {
      const response = await rawGet(base, path);
      assert.equal(response.status, 404, path);
      assert.match(response.contentType, /^application\/json/, path);
      assert.deepEqual(JSON.parse(response.body), { error: NOT_FOUND }, path);
    }
  });

  it('names inherited from Object.prototype are not files', async () => {
    for (const url of ['/ui/constructor', '/ui/__proto__', '/ui/toString']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { error: NOT_FOUND }, url);
    }
  });
});

describe('web UI routes under the real auth hook with requireAuth on', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    installErrorHandler(app, 1024);
    // No request below sends a credential, so the service is never asked to resolve one.
    const auth = { resolveBearer: async () => undefined } as unknown as AuthService;
    installAuth(app, auth, () => true);
    registerStaticUi(app, webDir);
    app.get('/api/v1/private', async () => ({ secret: true }));
    await app.ready();
  });
  after(() => app.close());

  it('serves the page, its files and the redirects without a token', async () => {
    const control = await app.inject({ method: 'GET', url: '/api/v1/private' });
    assert.equal(control.statusCode, 401);
    for (const [url, status] of [
      ['/', 302],
      ['/ui', 302],
      ['/ui/', 200],
      ['/ui/app.js', 200],
      ['/ui/style.css', 200],
      ['/ui/missing.js', 404],
    ] as const) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, status, url);
    }
  });
});

describe('registerStaticUi with a missing web folder', () => {
  it('throws at registration, naming the missing file', () => {
    const app = Fastify();
    assert.throws(() => registerStaticUi(app, '/nonexistent-web-dir'), /index\.html/);
  });
});
