// What a new user hit with the command-line program (issue 20), each through the real binary against a
// real server: text results of `rules run`, sessions as the chat named them, every config key readable,
// questions before destructive steps, /agent typos, the address order, HTTPS to a plain server, and
// running from source said aloud.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { BIN, cli, cliEnv, startTestServer, type TestServer } from './cli-harness.ts';

const APP_KEY = 'sk-app-key-for-cli-sessions-0001';

function flatten(tree: unknown, prefix = ''): Array<[string, unknown]> {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) return [[prefix, tree]];
  const entries = Object.entries(tree);
  if (entries.length === 0) return [[prefix, tree]];
  return entries.flatMap(([key, value]) => flatten(value, prefix ? `${prefix}.${key}` : key));
}

describe('agent-service: what a new user hit', () => {
  let t: TestServer;
  const run = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
    cli([...args, '--url', t.url], t.home, { env, ...(stdin === undefined ? {} : { stdin }) });

  before(async () => {
    t = await startTestServer(
      [
        'security:',
        '  requireAuth: false',
        'channels:',
        '  api:',
        '    enabled: true',
        '    accounts:',
        '      app1:',
        `        api_key: ${APP_KEY}`,
        '',
      ].join('\n'),
    );
  });
  after(() => t.close());

  it('rules run prints a text result as text, exit 0', async () => {
    const chain = {
      ruleChain: { id: 'greet', name: 'Greet' },
      metadata: {
        nodes: [
          {
            id: 't',
            type: 'jsTransform',
            configuration: {
              jsScript:
                'return {msg: "hello " + msg, metadata: metadata, msgType: msgType, dataType: "TEXT"};',
            },
          },
        ],
        connections: [],
      },
    };
    const created = await fetch(`${t.url}/api/v1/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chain),
    });
    assert.equal(created.status, 201, await created.text());
    const direct = await fetch(`${t.url}/api/v1/rules/greet/execute`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'world',
    });
    assert.match(String(direct.headers.get('content-type')), /^text\/plain/, 'the chain answers text');
    const ran = await run(['rules', 'run', 'greet', '-d', 'world']);
    assert.equal(ran.code, 0, ran.err);
    assert.equal(ran.out, 'hello world\n');
  });

  it('sessions list, show and clear find what agent -s made with an api account key; none is exit 1', async () => {
    const env = { SERVICE_API_KEY: APP_KEY };
    const chat = await run(['agent', '-s', 'notes-1', '-m', 'remember the blue folder'], env);
    assert.equal(chat.code, 0, chat.err);
    const listed = await run(['sessions', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.err);
    const sessions = JSON.parse(listed.out) as Array<{ sessionId: string; key: string }>;
    assert.ok(
      sessions.some((session) => session.sessionId.endsWith('notes-1')),
      listed.out,
    );
    const human = await run(['sessions', 'list'], env);
    assert.match(human.out, /notes-1/);
    const shown = await run(['sessions', 'show', 'notes-1'], env);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /^user: remember the blue folder$/m);
    assert.match(shown.out, /^assistant: \[demo model\]/m);
    const cleared = await run(['sessions', 'clear', 'notes-1'], env);
    assert.equal(cleared.code, 0, cleared.err);
    assert.match(cleared.out, /conversation notes-1 of main cleared/);
    const again = await run(['sessions', 'clear', '-s', 'notes-1'], env);
    assert.equal(again.code, 1);
    assert.match(again.err, /session "notes-1" of agent "main" not found/);
    assert.doesNotMatch(again.out, /✓/);
  });

  it('every key config list shows can be read with config get; secrets read as set', async () => {
    const listed = await run(['config', 'list', '--json']);
    assert.equal(listed.code, 0, listed.err);
    const tree = JSON.parse(listed.out) as Record<string, unknown>;
    for (const section of [
      'server',
      'data',
      'cluster',
      'models',
      'security',
      'engine',
      'agents',
      'channels',
      'bindings',
    ])
      assert.ok(section in tree, `config list shows ${section}`);
    assert.ok(!listed.out.includes(APP_KEY), 'no secret in the list');
    for (const [key, value] of flatten(tree).filter(([key]) => key !== '')) {
      const got = await run(['config', 'get', key, '--json']);
      assert.equal(got.code, 0, `${key}: ${got.err}`);
      assert.deepEqual(JSON.parse(got.out), value, key);
    }
    for (const [key, value, shown] of [
      ['server.request_timeout_ms', '45000', 45000],
      ['cluster.key_prefix', 'walk:', 'walk:'],
      ['engine.rest_allow_private_network', 'true', true],
      ['security.jwtSecret', 'a-jwt-secret-that-is-long-enough-123', true],
    ] as const) {
      const set = await run(['config', 'set', key, value]);
      assert.equal(set.code, 0, `${key}: ${set.err}`);
      const got = await run(['config', 'get', key, '--json']);
      assert.equal(got.code, 0, `${key}: ${got.err}`);
      assert.deepEqual(JSON.parse(got.out), shown, key);
    }
    assert.equal((await run(['config', 'get', 'channels.api.accounts.app1.api_key'])).out, 'true\n');
    const all = (await run(['config', 'list'])).out;
    assert.ok(!all.includes('a-jwt-secret-that-is-long-enough-123') && !all.includes(APP_KEY));
  });

  it('api-key rotate and removing a folder that is not empty ask first; --yes for scripts', async () => {
    const refused = await run(['api-key', 'rotate']);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /rotating the API key needs --yes when stdin is not a terminal/);

    const put = await run(['workspace', 'put', 'notes/a.md', '-a', 'main'], {}, 'note');
    assert.equal(put.code, 0, put.err);
    const kept = await run(['workspace', 'rm', 'notes', '-a', 'main']);
    assert.equal(kept.code, 2);
    assert.match(kept.err, /deleting the folder notes, which is not empty, needs --yes/);
    assert.match((await run(['workspace', 'ls', 'notes', '-a', 'main'])).out, /a\.md/);
    const removed = await run(['workspace', 'rm', 'notes', '-a', 'main', '--yes']);
    assert.equal(removed.code, 0, removed.err);
    assert.equal((await run(['workspace', 'ls', 'notes', '-a', 'main'])).code, 1);
    // A single file needs no question.
    await run(['workspace', 'put', 'b.md', '-a', 'main'], {}, 'b');
    assert.equal((await run(['workspace', 'rm', 'b.md', '-a', 'main'])).code, 0);
  });

  it('agent chat -s shows the earlier messages when it resumes; a new id says so', async () => {
    const env = { SERVICE_API_KEY: APP_KEY };
    assert.equal((await run(['agent', '-s', 'resume-1', '-m', 'the code is 4471'], env)).code, 0);
    const resumed = await run(['agent', 'chat', '-s', 'resume-1'], env, '/exit\n');
    assert.equal(resumed.code, 0, resumed.err);
    assert.match(resumed.out, /^user: the code is 4471$/m);
    assert.match(resumed.out, /^assistant: \[demo model\]/m);
    const fresh = await run(['agent', 'chat', '-s', 'never-used'], env, '/exit\n');
    assert.match(fresh.out, /no earlier messages in never-used: a new session/);
  });

  it('dashboard prints the web UI address', async () => {
    const dashboard = await run(['dashboard']);
    assert.equal(dashboard.code, 0, dashboard.err);
    assert.equal(dashboard.out, `${t.url}/ui/\n`);
    const page = await fetch(dashboard.out.trim());
    assert.equal(page.status, 200);
  });

  it('--help lists the address order with the data-root lock', async () => {
    const help = await cli(['--help'], t.home);
    assert.equal(help.code, 0);
    assert.match(
      help.out,
      /1\. --url[\s\S]*2\. SERVICE_URL[\s\S]*3\. the server running on the config file's data root[\s\S]*server\.lock[\s\S]*4\. the host and port of the config file[\s\S]*5\. http:\/\/127\.0\.0\.1:9527/,
    );
  });

  it('--url https:// to a plain HTTP server says so', async () => {
    const https = t.url.replace(/^http:/, 'https:');
    const result = await cli(['status', '--url', https], t.home);
    assert.equal(result.code, 1);
    assert.match(
      result.err,
      new RegExp(
        `${https.replace(/[.]/g, '\\.')} does not answer HTTPS: it looks like a plain HTTP server; use --url ${t.url.replace(/[.]/g, '\\.')}`,
      ),
    );
    assert.doesNotMatch(result.err, /SSL|ssl3|wrong version/);
  });
});

describe('agent-service doctor and chat platform accounts', () => {
  let telegram: FakeTelegram;
  let t: TestServer;
  before(async () => {
    telegram = await startFakeTelegram();
    telegram.setTokens(['100:good-token']);
    t = await startTestServer(
      [
        'security:',
        '  requireAuth: false',
        'channels:',
        '  telegram:',
        '    enabled: true',
        '    accounts:',
        '      good:',
        '        app_secret: "100:good-token"',
        `        api_base: ${telegram.url}`,
        '      revoked:',
        '        app_secret: "200:revoked-token"',
        `        api_base: ${telegram.url}`,
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await t.close();
    await telegram.close();
  });

  it('checks each account: a working one is ok, a refused token fails with the reason', async () => {
    // Wait until both accounts have settled (connected, or refused).
    for (;;) {
      const channels = (await (await fetch(`${t.url}/api/v1/channels`)).json()) as {
        platforms: { telegram: { accounts: Record<string, { status: { state: string } }> } };
      };
      const states = Object.values(channels.platforms.telegram.accounts).map(
        (account) => account.status.state,
      );
      if (states.length === 2 && !states.includes('connecting')) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const doctor = await cli(['doctor', '--json', '--url', t.url], t.home);
    assert.equal(doctor.code, 1, 'a failed check fails the command');
    const checks = JSON.parse(doctor.out) as Array<{ check: string; status: string; detail: string }>;
    assert.deepEqual(
      checks.find((check) => check.check === 'channel telegram/good'),
      { check: 'channel telegram/good', status: 'ok', detail: 'connected' },
    );
    const revoked = checks.find((check) => check.check === 'channel telegram/revoked');
    assert.equal(revoked?.status, 'fail');
    assert.match(revoked?.detail ?? '', /token|refused|401|unauthorized/i);
    assert.ok(!doctor.out.includes('revoked-token'), 'no token in the output');
  });
});

describe('agent-service run from source', () => {
  let dir: string;
  before(async () => {
    // A copy of the launcher beside a stale dist/ and a newer src/main.ts that only says where it ran.
    dir = await mkdtemp(join(tmpdir(), 'cli-stale-'));
    await mkdir(join(dir, 'bin'));
    await mkdir(join(dir, 'dist'));
    await mkdir(join(dir, 'src'));
    await copyFile(BIN, join(dir, 'bin', 'agent-service.mjs'));
    await symlink(join(import.meta.dirname, '..', '..', 'node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'dist', 'main.js'), "console.log('ran dist');\n");
    await writeFile(join(dir, 'src', 'main.ts'), "console.log('ran source');\n");
    const old = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'dist', 'main.js'), old, old);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('says on a terminal that it runs from source because dist/ is older, and stays quiet when piped', async () => {
    const launcher = join(dir, 'bin', 'agent-service.mjs');
    const piped = await new Promise<{ out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [launcher], { env: cliEnv(dir) });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('close', () => resolve({ out, err }));
    });
    assert.equal(piped.out, 'ran source\n');
    assert.equal(piped.err, '');
    const terminal = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qfec', `"${process.execPath}" "${launcher}"`, '/dev/null'], {
        env: cliEnv(dir, { TERM: 'xterm' }),
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('close', () => resolve(out));
    });
    assert.match(terminal, /note: src\/ is newer than dist\/: running from source .*npm run build/);
    assert.match(terminal, /ran source/);
  });
});
