// A server started with --port that its config file does not name is still found: the client reads
// the address the running server recorded in its data root's lock file.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, startTestServer, type TestServer } from './cli-harness.ts';

describe('cli: finding a server started on another port', () => {
  let t: TestServer;
  before(async () => {
    // The config file says 9527; the server listens on a free port chosen at start.
    t = await startTestServer('server:\n  port: 9527\nsecurity:\n  requireAuth: false\n');
  });
  after(() => t.close());

  it('uses the address in the data root lock of the config file in the working folder', async () => {
    assert.notEqual(new URL(t.url).port, '9527');
    const run = await cli(['status', '--json'], t.home, { cwd: t.dir });
    assert.equal(run.code, 0, run.err);
    const status = JSON.parse(run.out) as { url: string };
    assert.equal(new URL(status.url).host, new URL(t.url).host);
  });

  it('falls back to the config file once that server has stopped', async () => {
    const stopped = await startTestServer('server:\n  port: 1\nsecurity:\n  requireAuth: false\n');
    const dir = stopped.dir;
    await stopped.server.close();
    const run = await cli(['status'], stopped.home, { cwd: dir });
    assert.equal(run.code, 1);
    assert.match(run.err, /cannot reach http:\/\/127\.0\.0\.1:1 .*config file/);
    await stopped.close().catch(() => undefined);
  });
});

describe('cli: an address carrying credentials', () => {
  it('is refused (exit 2) without the password in the error line, from --url or SERVICE_URL', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-address-'));
    try {
      for (const [args, env] of [
        [['status', '--url', 'http://admin:Hunter2Secret@127.0.0.1:1'], {}],
        [['status', '--url', 'admin:Hunter2Secret@127.0.0.1:1'], {}],
        [['status', '--url', 'ftp://admin:Hunter2Secret@127.0.0.1:1'], {}],
        [['status', '--json'], { SERVICE_URL: 'https://admin:Hunter2Secret@127.0.0.1:1/api/v1' }],
      ] as const) {
        const run = await cli([...args], home, { env: { ...env } as Record<string, string> });
        assert.equal(run.code, 2, run.err);
        assert.match(run.err, /\*\*\*@127\.0\.0\.1:1/);
        assert.doesNotMatch(run.out + run.err, /Hunter2Secret/);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
