import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, startTestServer, type TestServer } from './cli-harness.ts';

const CONFIG = `security:
  requireAuth: true
  users:
    admin: s3cret-password
channels:
  api:
    accounts:
      tool:
        api_key: sk-cli-account-key
`;

describe('agent-service with authentication on', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(CONFIG);
  });
  after(() => t.close());

  it('without a credential a management command says how to log in (exit 1, one line)', async () => {
    const result = await cli(['agents', 'list', '--url', t.url], t.home);
    assert.equal(result.code, 1);
    assert.equal(
      result.err,
      `error: ${t.url} refused the request (401: missing Authorization: Bearer <token or API key>); run: agent-service login\n`,
    );
  });

  it('a wrong SERVICE_API_KEY is refused with a hint, and the key is not printed', async () => {
    const result = await cli(['agents', 'list', '--url', t.url], t.home, {
      env: { SERVICE_API_KEY: 'sk-wrong-key-123' },
    });
    assert.equal(result.code, 1);
    assert.match(
      result.err,
      /refused the request \(401: .*\); check SERVICE_API_KEY, or unset it and run: agent-service login\n$/,
    );
    assert.doesNotMatch(result.err, /sk-wrong-key-123/);
  });

  it('a wrong password is exit 1 and caches nothing', async () => {
    const result = await cli(['login', '--url', t.url], t.home, { stdin: 'not-the-password\n' });
    assert.equal(result.code, 1);
    assert.match(result.err, /^error: .*401/);
    await assert.rejects(stat(join(t.home, '.config', 'agent-service', 'credentials.json')));
  });

  it('agent run uses the api account key of the config file (chat only), the first credential of rule 6', async () => {
    const result = await cli(
      ['agent', '-m', 'hello', '--config', join(t.dir, 'config.yaml'), '--url', t.url],
      t.home,
    );
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /^\[demo model\]/);
    const chat = await cli(['chat', '--url', t.url, 'hello'], t.home, {
      env: { SERVICE_API_KEY: 'sk-cli-account-key' },
    });
    assert.equal(chat.code, 0, chat.err);
    assert.match(chat.out, /^\[demo model\]/);
  });

  it('login reads the password from a pipe, keeps a 0600 token keyed by server, and logout forgets it', async () => {
    const login = await cli(['login', '--url', `${t.url}/api/v1`], t.home, { stdin: 's3cret-password\n' });
    assert.equal(login.code, 0, login.err);
    assert.match(login.out, new RegExp(`logged in to ${t.url} as admin until `));
    const path = join(t.home, '.config', 'agent-service', 'credentials.json');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const file = JSON.parse(await readFile(path, 'utf8'));
    assert.deepEqual(Object.keys(file.servers), [t.url]);
    assert.doesNotMatch(login.out + login.err, new RegExp(file.servers[t.url].token));

    const agents = await cli(['agents', 'list', '--url', t.url], t.home);
    assert.equal(agents.code, 0, agents.err);
    assert.equal(agents.out, 'main\tMain agent\t(default)\tloaded\n');
    const other = await cli(['agents', 'list', '--url', 'http://localhost:1'], t.home);
    assert.match(
      other.err,
      /cannot reach http:\/\/localhost:1/,
      'a token of one server is not sent to another',
    );

    const key = await cli(['api-key', 'show', '--json', '--url', t.url], t.home);
    assert.equal(key.code, 0, key.err);
    const apiKey = JSON.parse(key.out).apiKey as string;
    assert.ok(apiKey.length > 10);
    const rotated = await cli(['api-key', 'rotate', '--yes', '--url', t.url], t.home);
    assert.equal(rotated.code, 0, rotated.err);
    assert.notEqual(rotated.out.trim(), apiKey);
    const withKey = await cli(['config', 'get', 'security.requireAuth', '--url', t.url], t.home, {
      env: { SERVICE_API_KEY: rotated.out.trim() },
    });
    assert.equal(withKey.code, 0, withKey.err);
    assert.equal(withKey.out, 'true\n');

    const logout = await cli(['logout', '--url', t.url], t.home);
    assert.equal(logout.code, 0);
    assert.match(logout.out, /logged out of/);
    const after = await cli(['agents', 'list', '--url', t.url], t.home);
    assert.equal(after.code, 1);
    assert.match(after.err, /run: agent-service login/);
  });

  it('password changes the password from piped lines and logs in again with the new one', async () => {
    const login = await cli(['login', '--url', t.url], t.home, { stdin: 's3cret-password\n' });
    assert.equal(login.code, 0, login.err);
    const change = await cli(['password', '--url', t.url], t.home, {
      stdin: 's3cret-password\nnew-s3cret-password\n',
    });
    assert.equal(change.code, 0, change.err);
    assert.match(change.out, /password of admin changed/);
    const agents = await cli(['agents', 'list', '--url', t.url], t.home);
    assert.equal(agents.code, 0, agents.err);
    const old = await cli(['login', '--url', t.url], t.home, { stdin: 's3cret-password\n' });
    assert.equal(old.code, 1);
  });
});
