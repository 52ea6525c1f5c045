import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findCredential, tokenCachePath, writeCachedToken } from '../../src/cli/credentials.ts';
import { configSchema } from '../../src/config/schema.ts';
import { startServer, type RunningServer } from '../../src/server.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');

function cli(
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: env['HOME'] ?? tmpdir(),
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

describe('command-line client credentials', () => {
  const config = configSchema.parse({
    channels: {
      api: {
        accounts: { off: { api_key: 'sk-off', enabled: false }, app: { api_key: 'sk-app', enabled: true } },
      },
    },
  });

  it('prefers SERVICE_API_KEY, then the first enabled api account key, then the cached login', async () => {
    const home = await mkdtemp(join(tmpdir(), 'home-'));
    const tokenPath = tokenCachePath(home);
    const url = 'http://127.0.0.1:9527';
    await writeCachedToken(tokenPath, {
      url,
      token: 'jwt-cached',
      expireAt: new Date(Date.now() + 60_000).toISOString(),
    });
    assert.equal(
      await findCredential({ env: { SERVICE_API_KEY: 'sk-env' }, config, url, tokenPath }),
      'sk-env',
    );
    assert.equal(await findCredential({ env: {}, config, url, tokenPath }), 'sk-app');
    assert.equal(await findCredential({ env: {}, config: undefined, url, tokenPath }), 'jwt-cached');
    assert.equal(
      await findCredential({ env: {}, config: undefined, url: 'http://127.0.0.1:1', tokenPath }),
      undefined,
      'a token of another server is not used',
    );
    assert.equal(
      await findCredential({ env: {}, config, url, tokenPath, forChat: false }),
      'jwt-cached',
      'management calls skip chat-only account keys',
    );
    assert.equal((await stat(tokenPath)).mode & 0o777, 0o600);
    await rm(home, { recursive: true, force: true });
  });
});

describe('command-line client against a running server', () => {
  let dir: string;
  let server: RunningServer;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-client-'));
    await writeFile(
      join(dir, 'config.yaml'),
      'security:\n  requireAuth: true\n  users:\n    admin: s3cret-password\nchannels:\n  api:\n    accounts:\n      tool:\n        api_key: sk-cli-account-key\n',
    );
    server = await startServer({
      config: join(dir, 'config.yaml'),
      port: 0,
      cwd: dir,
      env: {},
      say: () => undefined,
      logLevel: 'silent',
    });
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('chat uses the api account key from the config file when nothing else is given', async () => {
    const result = await cli(['chat', '--url', server.url, 'hello'], { HOME: dir });
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /^\[demo model\]/);
  });

  it('chat streams the answer using SERVICE_API_KEY', async () => {
    const result = await cli(['chat', '--url', server.url, 'hello'], {
      SERVICE_API_KEY: 'sk-cli-account-key',
      HOME: tmpdir(),
    });
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /^\[demo model\]/);
  });

  it('without a credential the server refuses, and the error is one clear line', async () => {
    const result = await cli(['agents', '--url', server.url], { HOME: dir });
    assert.equal(result.code, 1);
    assert.equal(result.err, 'agent-service: 401: missing Authorization: Bearer <token or API key>\n');
  });

  it('login caches a token that agents then uses', async () => {
    const login = await cli(['login', '--url', server.url], { HOME: dir }, 's3cret-password\n');
    assert.equal(login.code, 0, login.err);
    assert.match(login.out, /logged in to .* as admin/);
    const agents = await cli(['agents', '--url', server.url], { HOME: dir });
    assert.equal(agents.code, 0, agents.err);
    assert.match(agents.out, /^main\tMain agent\tloaded$/m);
  });
});
