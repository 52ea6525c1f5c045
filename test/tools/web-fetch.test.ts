import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { createWebFetchTool } from '../../src/tools/web-fetch.ts';
import type { ToolContext } from '../../src/tools/types.ts';

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  agentId: 'test',
  workspaceDir: '/nonexistent',
});

const PAGE = `<!doctype html><html><head><title>Fake &amp; Page</title><style>p{color:red}</style>
<script>alert("x")</script></head><body><h1>Welcome</h1><p>Fish &lt;3 chips&nbsp;&#8212; tasty.</p>
<ul><li>one</li><li>two</li></ul><!-- hidden --></body></html>`;

describe('web_fetch tool', () => {
  let server: Server;
  let base: string;
  let hits = 0;

  before(async () => {
    server = createServer((request, response) => {
      hits += 1;
      const path = request.url ?? '/';
      if (path === '/page') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(PAGE);
      } else if (path === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('z'.repeat(10_000));
      } else if (path === '/gzip') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(JSON.stringify({ packed: true })));
      } else if (path === '/image') {
        response.writeHead(200, { 'content-type': 'image/png' });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]));
      } else if (path === '/redirect') {
        response.writeHead(302, { location: '/page' });
        response.end();
      } else if (path.startsWith('/loop/')) {
        response.writeHead(301, { location: `/loop/${Number(path.slice(6)) + 1}` });
        response.end();
      } else if (path === '/to-metadata') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        response.end();
      } else if (path === '/hang') {
        // never answers
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('no such page');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const local = (config: Record<string, unknown> = {}) =>
    createWebFetchTool({ allowPrivateNetwork: true, ...config });

  it('refuses loopback by default, before connecting', async () => {
    const before = hits;
    const tool = createWebFetchTool();
    for (const url of [
      `${base}/page`,
      `http://localhost:${new URL(base).port}/page`,
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      await assert.rejects(
        tool.execute({ url }, context()),
        (error: unknown) =>
          error instanceof AppError && error.kind === 'forbidden' && /private, loopback/.test(error.message),
        url,
      );
    }
    assert.equal(hits, before);
  });

  it('refuses link-local, private and unspecified addresses by default', async () => {
    const tool = createWebFetchTool();
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://0.0.0.0/',
      'http://192.168.0.1:8080/',
    ]) {
      await assert.rejects(
        tool.execute({ url }, context()),
        (error: unknown) => (error as AppError).kind === 'forbidden',
        url,
      );
    }
  });

  it('refuses schemes other than http and https', async () => {
    await assert.rejects(local().execute({ url: 'file:///etc/passwd' }, context()), /only http and https/);
    await assert.rejects(local().execute({ url: 'not a url' }, context()), /not a valid URL/);
  });

  it('fetches an HTML page as readable text when the private network is allowed', async () => {
    const text = await local().execute({ url: `${base}/page` }, context());
    assert.equal(
      text,
      `URL: ${base}/page\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\n\nFake & Page\n\nWelcome\n\nFish <3 chips — tasty.\n\n- one\n- two`,
    );
  });

  it('cuts the body at the size cap', async () => {
    const text = await local({ maxBytes: 1_000 }).execute({ url: `${base}/big` }, context());
    assert.ok(text.includes(`${'z'.repeat(1_000)}\n\n[truncated: only the first 1000 bytes were read]`));
    assert.ok(!text.includes('z'.repeat(1_001)));
    const smaller = await local({ maxBytes: 1_000 }).execute(
      { url: `${base}/big`, maxBytes: 100 },
      context(),
    );
    assert.ok(smaller.includes(`${'z'.repeat(100)}\n\n[truncated`));
  });

  it('decompresses gzip and names binary content instead of printing it', async () => {
    assert.match(await local().execute({ url: `${base}/gzip` }, context()), /\n\n\{"packed":true\}$/);
    assert.match(
      await local().execute({ url: `${base}/image` }, context()),
      /binary content, 5 bytes; not shown/,
    );
  });

  it('follows redirects, at most five', async () => {
    assert.match(
      await local().execute({ url: `${base}/redirect` }, context()),
      new RegExp(`^URL: ${base}/page\\nStatus: 200`),
    );
    await assert.rejects(local().execute({ url: `${base}/loop/0` }, context()), /too many redirects/);
  });

  it('checks every redirect hop again', async () => {
    const onlyThisHost = createWebFetchTool({}, { isAllowedAddress: (address) => address === '127.0.0.1' });
    assert.match(await onlyThisHost.execute({ url: `${base}/page` }, context()), /Status: 200/);
    await assert.rejects(
      onlyThisHost.execute({ url: `${base}/to-metadata` }, context()),
      (error: unknown) =>
        error instanceof AppError && error.kind === 'forbidden' && /169\.254\.169\.254/.test(error.message),
    );
  });

  it('returns error statuses as text and stops at the time limit', async () => {
    assert.match(
      await local().execute({ url: `${base}/missing` }, context()),
      /Status: 404 Not Found[\s\S]*no such page/,
    );
    await assert.rejects(
      local({ timeoutMs: 300 }).execute({ url: `${base}/hang` }, context()),
      (error: unknown) => error instanceof AppError && error.kind === 'timeout',
    );
  });
});
