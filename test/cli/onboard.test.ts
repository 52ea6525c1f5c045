// `agent-service onboard` with flags, as a script runs it on a fresh install: the provider is proven
// with a live completion before it is saved, the admin password set and authentication turned on;
// the server then started from that config answers a chat only with a login. A provider or a
// Telegram token that does not work is refused and nothing of it is saved.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { cli } from './cli-harness.ts';

const TG_TOKEN = '123456:SECRET-token-abcdefghijklmnop';

describe('agent-service onboard', () => {
  let dir: string;
  let upstream: FakeUpstream | undefined;
  let tg: FakeTelegram | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    await tg?.close();
    await upstream?.close();
    server = tg = upstream = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('a fresh install ends with a proven provider, auth on and a working chat', async () => {
    upstream = await startFakeUpstream({ reply: 'Hello there, friend!' });
    tg = await startFakeTelegram({ tokens: [TG_TOKEN] });
    dir = await mkdtemp(join(tmpdir(), 'onboard-'));
    const config = join(dir, 'config.yaml');
    const run = await cli(
      [
        'onboard',
        '--config',
        config,
        '--provider-id',
        'fake',
        '-u',
        upstream.url,
        '-m',
        'fake-model',
        '--api-key-stdin',
        '--admin-password-stdin',
        '--auth',
        '--telegram-token',
        TG_TOKEN,
        '--telegram-api-base',
        tg.url,
      ],
      dir,
      { stdin: 'sk-provider-key-0123456789\nonboard-password-1\n' },
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out + run.err, /the model answered in \d+ ms: "Hello there, friend!"/);
    assert.match(run.out + run.err, /authentication is required/);
    assert.match(run.out + run.err, /Telegram bot connected/);
    assert.match(run.out, /Web UI: http:\/\/127\.0\.0\.1:9527\/ui\//);
    assert.equal(upstream.requestCount, 1, 'one live completion proved the provider');
    assert.doesNotMatch(run.out + run.err, /sk-provider-key|onboard-password-1/);
    const text = await readFile(config, 'utf8');
    assert.doesNotMatch(text, /onboard-password-1/, 'the password is stored hashed');
    assert.match(text, /requireAuth: true/);
    assert.match(text, /default_provider: fake/);

    server = await startServer({
      config,
      port: 0,
      cwd: dir,
      env: {},
      say: () => undefined,
      logLevel: 'silent',
    });
    const chat = (headers: Record<string, string>) =>
      fetch(`${server!.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
      });
    assert.equal((await chat({})).status, 401, 'auth is on');
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'onboard-password-1' }),
    });
    assert.equal(login.status, 200);
    const { token } = (await login.json()) as { token: string };
    const answer = await chat({ authorization: `Bearer ${token}` });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(body.choices[0]?.message.content, 'Hello there, friend!');
  });

  it('refuses a provider that does not answer, a bad Telegram token, and auth with the default password', async () => {
    upstream = await startFakeUpstream();
    tg = await startFakeTelegram({ tokens: [TG_TOKEN] });
    dir = await mkdtemp(join(tmpdir(), 'onboard-'));
    const config = join(dir, 'config.yaml');
    const dead = await cli(
      ['onboard', '--config', config, '-u', 'http://127.0.0.1:9/v1', '-m', 'x', '--yes'],
      dir,
    );
    assert.equal(dead.code, 1);
    assert.match(dead.err, /the provider did not answer; nothing was saved/);
    assert.doesNotMatch(await readFile(config, 'utf8'), /127\.0\.0\.1:9\//);

    const noPassword = await cli(['onboard', '--config', config, '--auth'], dir);
    assert.equal(noPassword.code, 2);
    assert.match(noPassword.err, /needs an admin password first/);
    assert.doesNotMatch(await readFile(config, 'utf8'), /requireAuth: true/);

    const badToken = await cli(
      [
        'onboard',
        '--config',
        config,
        '--telegram-token',
        '999:WRONG-token-000000000000000',
        '--telegram-api-base',
        tg.url,
      ],
      dir,
    );
    assert.equal(badToken.code, 1);
    assert.match(badToken.err, /Telegram refused the token: Unauthorized; the account was not saved/);
    assert.doesNotMatch(badToken.err, /WRONG-token/);
    assert.doesNotMatch(await readFile(config, 'utf8'), /telegram:\s*\n\s*enabled: true/);
  });
  it('checks the server --url names, when it runs on another port than the config says', async () => {
    upstream = await startFakeUpstream();
    dir = await mkdtemp(join(tmpdir(), 'onboard-'));
    const config = join(dir, 'config.yaml');
    server = await startServer({
      config,
      port: 0,
      cwd: dir,
      env: {},
      say: () => undefined,
      logLevel: 'silent',
    });
    const run = await cli(
      ['--url', server.url, 'onboard', '--config', config, '-u', upstream.url, '-m', 'fake-model', '--yes'],
      dir,
    );
    assert.equal(run.code, 0, run.err);
    assert.match(run.out + run.err, new RegExp(`server at ${server.url} is healthy`));
    assert.match(run.out, new RegExp(`Web UI: ${server.url}/ui/`));
  });
});
