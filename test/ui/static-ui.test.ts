import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { installAuth } from '../../src/http/auth-hook.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import type { AuthService } from '../../src/auth/auth-service.ts';
import {
  registerStaticUi,
  UI_CONTENT_SECURITY_POLICY,
  UI_NOT_BUILT,
  UI_NOT_FOUND as NOT_FOUND,
} from '../../src/http/static-ui.ts';
import { ensureUiBuilt } from './browser.ts';

const webDir = fileURLToPath(new URL('../../web', import.meta.url));
const IMMUTABLE = 'public, max-age=31536000, immutable';

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

/** The build's hashed script and stylesheet, as index.html references them. */
async function builtAssets(): Promise<{ script: string; style: string }> {
  const html = await readFile(join(webDir, 'dist', 'index.html'), 'utf8');
  const script = /<script type="module" crossorigin src="\/ui\/(assets\/[\w.-]+\.js)"><\/script>/.exec(
    html,
  )?.[1];
  const style = /<link rel="stylesheet" crossorigin href="\/ui\/(assets\/[\w.-]+\.css)">/.exec(html)?.[1];
  assert.ok(script && style, 'index.html references one hashed script and one stylesheet');
  return { script, style };
}

describe('web UI static files under /ui/', () => {
  let app: FastifyInstance;
  let assets: { script: string; style: string };
  before(async () => {
    await ensureUiBuilt();
    assets = await builtAssets();
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

  it('GET /ui/ serves the built index.html, no-cache, with no inline script or style', async () => {
    const response = await get('/ui/');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8$/);
    assert.equal(response.body, await readFile(join(webDir, 'dist', 'index.html'), 'utf8'));
    assert.equal(response.headers['cache-control'], 'no-cache');
    assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(response.body, /<style|\sstyle=/, 'no inline style');
  });

  it('hashed assets are served with their types and cached for a year', async () => {
    const script = await get(`/ui/${assets.script}`);
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript; charset=utf-8$/);
    assert.equal(script.headers['cache-control'], IMMUTABLE);
    assert.equal(script.body, await readFile(join(webDir, 'dist', assets.script), 'utf8'));
    const style = await get(`/ui/${assets.style}`);
    assert.equal(style.statusCode, 200);
    assert.match(String(style.headers['content-type']), /^text\/css; charset=utf-8$/);
    assert.equal(style.headers['cache-control'], IMMUTABLE);
  });

  it('client routes (deep links, any conversation key, unknown pages) get index.html', async () => {
    const index = await get('/ui/');
    for (const url of [
      '/ui/chat',
      '/ui/chat/main/ui-0123abcd',
      '/ui/agents/main/workspace',
      '/ui/login',
      // Conversations of other channels, as the chat page links them (issue 20.2).
      '/ui/chat/main/agent%3Amain%3Achannel%3Acron%3Ascope%3Amain%3Acron-7f2a',
      '/ui/chat/main/agent%3Amain%3Achannel%3Aslack%3Ascope%3Athread%3A1700000000.123456',
      '/ui/chat/main/agent%3Amain%3Achannel%3Afeishu%3Ascope%3Aper_peer%3Aou_%E4%BD%A0%E5%A5%BD',
      // A page that does not exist: the UI shows its own not-found page.
      '/ui/no-such-page/deeper',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, index.body, url);
      assert.equal(response.headers['cache-control'], 'no-cache', url);
    }
  });

  it('every UI answer carries the strict CSP and nosniff', async () => {
    for (const url of ['/ui/', `/ui/${assets.script}`, `/ui/${assets.style}`, '/ui/chat', '/ui/missing.js']) {
      const response = await get(url);
      assert.equal(response.headers['content-security-policy'], UI_CONTENT_SECURITY_POLICY, url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    }
    assert.equal(
      UI_CONTENT_SECURITY_POLICY,
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('a request repeating the ETag gets 304 with no body', async () => {
    const first = await get('/ui/');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const again = await get('/ui/', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const stale = await get('/ui/', { 'if-none-match': '"stale"' });
    assert.equal(stale.statusCode, 200);
  });

  it('an unknown file is a 404 JSON error', async () => {
    for (const url of ['/ui/secret.txt', '/ui/assets/missing.js', '/ui/assets/nothing']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.deepEqual(response.json(), { error: NOT_FOUND });
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
    }
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
      '/ui/./index.html',
      '/ui/index.html%00',
      '/ui/nested/index.html',
      '/ui/assets/../../package.json',
    ]) {
      const response = await rawGet(base, path);
      assert.equal(response.status, 404, path);
      assert.match(response.contentType, /^application\/json/, path);
      assert.deepEqual(JSON.parse(response.body), { error: NOT_FOUND }, path);
    }
  });

  it('names inherited from Object.prototype are not files', async () => {
    for (const url of ['/ui/constructor.js', '/ui/__proto__.js', '/ui/toString.js']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { error: NOT_FOUND }, url);
    }
  });
});

describe('web UI routes under the real auth hook with requireAuth on', () => {
  let app: FastifyInstance;
  before(async () => {
    await ensureUiBuilt();
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

  it('serves the page, its files, client routes and the redirects without a token', async () => {
    const control = await app.inject({ method: 'GET', url: '/api/v1/private' });
    assert.equal(control.statusCode, 401);
    const { script } = await builtAssets();
    for (const [url, status] of [
      ['/', 302],
      ['/ui', 302],
      ['/ui/', 200],
      [`/ui/${script}`, 200],
      ['/ui/login', 200],
      ['/ui/missing.js', 404],
    ] as const) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, status, url);
    }
  });
});

describe('registerStaticUi without a build', () => {
  it('tells how to build the UI once at start, and every UI path answers 503 saying it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-service-web-'));
    try {
      // A web folder with sources but no dist/: what a checkout looks like before `npm run build`.
      await mkdir(join(dir, 'src'));
      await writeFile(join(dir, 'index.html'), '<!doctype html>');
      const told: string[] = [];
      const app = Fastify();
      registerStaticUi(app, dir, (message) => told.push(message));
      await app.ready();
      assert.deepEqual(told, [UI_NOT_BUILT]);
      assert.match(UI_NOT_BUILT, /npm run build/);
      for (const url of ['/ui/', '/ui/chat', '/ui/assets/index.js']) {
        const response = await app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 503, url);
        assert.deepEqual(response.json(), { error: UI_NOT_BUILT }, url);
      }
      await app.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('registerStaticUi with a build', () => {
  it('reads the build on the first UI request, not at start, and then serves it from memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-service-web-'));
    try {
      await mkdir(join(dir, 'dist'));
      await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><p>at start</p>');
      const told: string[] = [];
      const app = Fastify();
      registerStaticUi(app, dir, (message) => told.push(message));
      await app.ready();
      assert.deepEqual(told, []);
      // Replaced after start, before any request: the first request reads what is there then.
      await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><p>first request</p>');
      assert.match((await app.inject({ method: 'GET', url: '/ui/' })).body, /first request/);
      // Read once: a later change on disk is not served.
      await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><p>later</p>');
      assert.match((await app.inject({ method: 'GET', url: '/ui/chat' })).body, /first request/);
      await app.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
