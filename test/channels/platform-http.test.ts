// The one guarded call of every platform adapter: what it refuses, and what its errors say.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PlatformError, platformFailure, platformFetch } from '../../src/channels/platform-http.ts';

const SECRET = 'bot-token-0123456789';

describe('platformFetch', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer((request, response) => {
      switch (request.url ?? '') {
        case '/ok':
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"ok":true}');
          return;
        case '/redirect':
          response.writeHead(302, { location: `${base}/ok` });
          response.end();
          return;
        case '/big':
          response.writeHead(200);
          response.end('x'.repeat(5000));
          return;
        case '/limited':
          response.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
          response.end(`{"description":"slow down ${SECRET}"}`);
          return;
        case '/html':
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end('<html>proxy</html>');
          return;
        default:
          // /slow: never answers within the tests' limits.
          setTimeout(() => response.end('late'), 5000).unref();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const call = (path: string, extra: Partial<Parameters<typeof platformFetch>[0]> = {}) =>
    platformFetch({ what: 'test call', url: `${base}${path}`, timeoutMs: 2000, maxBytes: 1024, ...extra });

  it('reads a JSON answer', async () => {
    const response = await call('/ok');
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { ok: true });
  });

  it('refuses a redirect instead of following it (a token must not reach another origin)', async () => {
    await assert.rejects(call('/redirect'), (error: unknown) => {
      assert.ok(error instanceof PlatformError);
      assert.equal(error.kind, 'upstream');
      assert.match(error.message, /^test call: could not reach the API \(/);
      return true;
    });
  });

  it('refuses an answer over the size cap', async () => {
    await assert.rejects(call('/big'), (error: unknown) => {
      assert.ok(error instanceof PlatformError);
      assert.equal(error.message, 'test call: the answer is larger than 1024 bytes');
      return true;
    });
  });

  it('gives the time limit and the caller’s cancel, each in its own words', async () => {
    await assert.rejects(
      call('/slow', { timeoutMs: 50 }),
      /test call: could not reach the API \(timed out\)/,
    );
    const controller = new AbortController();
    const pending = call('/slow', { signal: controller.signal });
    controller.abort(new Error('the client went away'));
    await assert.rejects(pending, /^Error: the client went away$/);
  });

  it('names a transport failure by its code only', async () => {
    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      platformFetch({
        what: 'test call',
        url: `http://127.0.0.1:${port}/bot${SECRET}/x`,
        timeoutMs: 2000,
        maxBytes: 10,
      }),
      (error: unknown) => {
        assert.ok(error instanceof PlatformError);
        assert.equal(error.message, 'test call: could not reach the API (ECONNREFUSED)');
        return true;
      },
    );
  });

  it('reads Retry-After; a failure carries the code and scrubbed message', async () => {
    const response = await call('/limited');
    assert.equal(response.retryAfterMs, 7000);
    const failure = platformFailure('test call', {
      status: response.status,
      code: 'rate_limited',
      message: String(response.json()['description']),
      secrets: [SECRET],
      retryAfterMs: response.retryAfterMs,
    });
    assert.equal(failure.message, 'test call failed (status 429, code rate_limited): slow down [redacted]');
    assert.equal(failure.retryAfterMs, 7000);
    assert.equal(failure.httpStatus, 429);
    assert.equal(failure.code, 'rate_limited');
  });

  it('an answer that is not JSON is a PlatformError naming the call and status', async () => {
    const response = await call('/html');
    assert.throws(
      () => response.json(),
      (error: unknown) =>
        error instanceof PlatformError &&
        error.message === 'test call: the API sent an answer that is not JSON (status 200)',
    );
  });
});
