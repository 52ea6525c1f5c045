// `channels add|set|remove|status --probe` against a real server and a fake Telegram Bot API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { cli, startTestServer, type TestServer } from '../cli/cli-harness.ts';

type Row = { platform: string; id: string; state: string; error?: string };

describe('agent-service channels add|set|remove|status', () => {
  let t: TestServer;
  let telegram: FakeTelegram;
  const run = (...args: string[]) => cli([...args, '--url', t.url], t.home);
  const account = async (id: string) => {
    const response = await fetch(`${t.url}/api/v1/channels/telegram/accounts/${id}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  before(async () => {
    telegram = await startFakeTelegram({ tokens: ['111:good-token'], maxHoldMs: 300 });
    t = await startTestServer('security:\n  requireAuth: false\n');
  });
  after(async () => {
    await t.close();
    await telegram.close();
  });

  it('add creates an account with its fields; a bad field is refused', async () => {
    const added = await run(
      'channels', 'add', 'telegram', 'support', '-n', 'Support bot',
      '-s', 'app_secret=111:good-token', '-s', `api_base=${telegram.url}`, '-s', 'allow_from=1,2',
    );
    assert.equal(added.code, 0, added.err);
    assert.match(added.out, /added telegram\/support/);
    const { body } = await account('support');
    assert.equal(body['name'], 'Support bot');
    
    assert.deepEqual(body['allowFrom'], ['1', '2']);
    assert.equal(JSON.stringify(body).includes('good-token'), false);
    const bad = await run('channels', 'add', 'telegram', 'x', '-s', 'dm_policy=sometimes');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /HTTP 400/);
    assert.equal((await run('channels', 'add', 'telegram', 'y', '-s', 'novalue')).code, 2);
  });

  it('status --probe waits for each account to connect and fails for one that cannot', async () => {
    const probe = await run('channels', 'status', '--probe', '--json', '--timeout', '15000');
    assert.equal(probe.code, 0, probe.err + probe.out);
    const rows = JSON.parse(probe.out) as Row[];
    assert.equal(rows.find((row) => row.id === 'support')?.state, 'connected');
    assert.equal(
      (await run('channels', 'add', 'telegram', 'revoked', '-s', 'app_secret=222:bad-token', '-s', `api_base=${telegram.url}`))
        .code,
      0,
    );
    const failing = await run('channels', 'status', '--probe', '--timeout', '15000');
    assert.equal(failing.code, 1);
    assert.match(failing.out, /support\s+connected/);
    assert.match(failing.out, /revoked\s+error\s+.*401/);
    assert.match(failing.err, /telegram\/revoked did not connect/);
  });

  it('set changes only the fields given; --enable with --disable is refused', async () => {
    const set = await run('channels', 'set', 'telegram', 'revoked', '--disable', '-n', 'Old bot');
    assert.equal(set.code, 0, set.err);
    const { body } = await account('revoked');
    assert.equal(body['enabled'], false);
    assert.equal(body['name'], 'Old bot');
    const status = JSON.parse((await run('channels', 'status', '--json')).out) as Row[];
    assert.equal(status.find((row) => row.id === 'revoked')?.state, 'disabled');
    assert.equal((await run('channels', 'set', 'telegram', 'revoked', '--enable', '--disable')).code, 2);
    assert.equal((await run('channels', 'set', 'telegram', 'revoked')).code, 2);
    const missing = await run('channels', 'set', 'telegram', 'nobody', '-n', 'x');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /HTTP 404/);
  });

  it('remove deletes the account', async () => {
    const removed = await run('channels', 'remove', 'telegram', 'revoked');
    assert.equal(removed.code, 0, removed.err);
    assert.equal((await account('revoked')).status, 404);
    assert.equal((await run('channels', 'remove', 'telegram', 'revoked')).code, 1);
  });
});
