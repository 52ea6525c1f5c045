import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { zipSync, strToU8 } from 'fflate';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { cli, startTestServer, type TestServer } from './cli-harness.ts';

describe('agent-service commands against a live server (authentication off)', () => {
  let t: TestServer;
  let upstream: FakeUpstream;
  const run = (...args: string[]) => cli([...args, '--url', t.url], t.home);
  const json = async (...args: string[]) => {
    const result = await run(...args, '--json');
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.err}`);
    return JSON.parse(result.out);
  };
  before(async () => {
    t = await startTestServer('security:\n  requireAuth: false\n');
    upstream = await startFakeUpstream({ reply: 'Hello from the fake upstream.' });
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('config get, set, list and reload', async () => {
    assert.equal((await run('config', 'get', 'security.requireAuth')).out, 'false\n');
    const set = await run('config', 'set', 'server.log_level', 'warn');
    assert.equal(set.code, 0, set.err);
    assert.equal(set.out, '✓ server.log_level: saved; restart to apply server.log_level\n');
    assert.match(await readFile(join(t.dir, 'config.yaml'), 'utf8'), /log_level: warn/);
    assert.deepEqual(Object.keys(await json('config', 'list', 'server')).slice(0, 3), [
      'host',
      'port',
      'body_limit',
    ]);
    assert.match((await run('config', 'list')).out, /^security\.users\.admin = true$/m);
    const unknown = await run('config', 'get', 'server.nope');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.err, 'error: config key "server.nope" not found (see: agent-service config list)\n');
    const bad = await run('config', 'set', 'server.port', 'x');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /server\.port.*\(HTTP 400 from/);
    const reload = await run('config', 'reload');
    assert.equal(reload.code, 0, reload.err);
    assert.match(reload.out, /reloaded/);
  });

  it('providers add, list, set-key, default and delete; the key is never printed', async () => {
    const add = await run(
      'providers',
      'add',
      'fake',
      '-u',
      upstream.url,
      '-m',
      'm1',
      '-k',
      'sk-provider-secret',
    );
    assert.equal(add.code, 0, add.err);
    const list = await json('providers', 'list');
    assert.deepEqual(
      list.map((p: { id: string; hasApiKey: boolean; default: boolean }) => [p.id, p.hasApiKey, p.default]),
      [['fake', true, true]],
    );
    const key = await cli(['providers', 'set-key', 'fake', '--url', t.url], t.home, {
      stdin: 'sk-new-secret\n',
    });
    assert.equal(key.code, 0, key.err);
    assert.match(await readFile(join(t.dir, 'config.yaml'), 'utf8'), /sk-new-secret/);
    assert.equal((await run('providers', 'add', 'second', '-u', upstream.url)).code, 0);
    assert.equal((await run('providers', 'default', 'second')).code, 0);
    assert.equal(
      (await run('providers', 'list')).out
        .split('\n')
        .find((l) => l.startsWith('second'))
        ?.split('\t')[1],
      '*',
    );
    const answer = await run('agent', '-m', 'hi');
    assert.equal(answer.out, 'Hello from the fake upstream.\n');
    const refused = await run('providers', 'delete', 'second');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /default provider.*\(HTTP 409/);
    assert.equal((await run('providers', 'default', 'fake')).code, 0);
    assert.equal((await run('providers', 'delete', 'second')).code, 0);
    assert.doesNotMatch(
      (await run('providers', 'list')).out + (await run('doctor')).out,
      /sk-new-secret|sk-provider-secret/,
    );
  });

  it('agents add, info, list, reload and delete (--force needed when piped)', async () => {
    const add = await run('agents', 'add', 'writer', '-n', 'Writer', '-m', 'm2', '-d', 'Drafts texts');
    assert.equal(add.code, 0, add.err);
    const info = await json('agents', 'info', 'writer');
    assert.equal(info.ruleChain.name, 'Writer');
    assert.equal(info.ruleChain.additionalInfo.description, 'Drafts texts');
    assert.match((await run('agents', 'info', 'writer')).out, /^model: +m2$/m);
    assert.deepEqual(
      (await json('agents', 'list')).map((a: { ruleChain: { id: string } }) => a.ruleChain.id).sort(),
      ['main', 'writer'],
    );
    assert.equal((await run('agents', 'reload', 'writer')).code, 0);
    const unforced = await run('agents', 'delete', 'writer');
    assert.equal(unforced.code, 2);
    assert.match(unforced.err, /needs --force/);
    assert.equal((await run('agents', 'delete', 'writer', '-f')).code, 0);
    const gone = await run('agents', 'info', 'writer');
    assert.equal(gone.code, 1);
    assert.match(gone.err, /not found \(HTTP 404 from http:\/\/127\.0\.0\.1:\d+\)\n$/);
  });

  it('agent run: plain, --json, --stream with tool calls on stderr, -f and stdin, sessions', async () => {
    assert.equal((await run('config', 'set', 'models.default_provider', '""')).code, 0);
    assert.equal((await run('providers', 'delete', 'fake')).code, 0);
    const json1 = await json('agent', 'run', '-m', 'list files');
    assert.equal(json1.object, 'chat.completion');
    const stream = await run('agent', '--stream', '-m', 'list files');
    assert.equal(stream.code, 0, stream.err);
    assert.match(stream.err, /⚙ glob\(\{"pattern":"\*\*\/\*"\}\)\n {2}↳ /);
    assert.match(stream.out, /^\[demo model\]/);
    const events = (await run('agent', '--stream', '--json', '-m', 'list files')).out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      events.slice(0, 2).map((e: { type: string }) => e.type),
      ['tool-call-start', 'tool-call-result'],
    );
    await writeFile(join(t.home, 'notes.txt'), 'remember the milk');
    const withFile = await cli(['agent', '-f', join(t.home, 'notes.txt'), '--url', t.url], t.home, {
      stdin: 'summarise',
    });
    assert.equal(withFile.code, 0, withFile.err);
    const none = await run('agent', 'run');
    assert.equal(none.code, 2);
    assert.match(none.err, /give a message: agent "\.\.\." or -m/);
    // The message may be given as words, with or without "run", and with a session.
    for (const words of [
      ['agent', 'list', 'files'],
      ['agent', 'run', '-s', 'cli-words', 'list files'],
    ]) {
      const answer = await run(...words);
      assert.equal(answer.code, 0, answer.err);
      assert.match(answer.out, /^\[demo model\]/);
    }
    const missing = await run('agent', '-a', 'nobody', '-m', 'hi');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /HTTP 404/);
    assert.equal((await run('agent', '-s', 'cli-test', '-m', 'hello')).code, 0);
    const cleared = await run('sessions', 'clear', '-a', 'main', '-s', 'cli-test');
    assert.equal(cleared.code, 0, cleared.err);
  });

  it('rules list, info, reload and execute', async () => {
    const chain = {
      ruleChain: { id: 'double', name: 'Double' },
      metadata: {
        nodes: [
          {
            id: 't',
            type: 'jsTransform',
            configuration: {
              jsScript: 'return {msg: {n: msg.n * 2}, metadata: metadata, msgType: msgType};',
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
    assert.ok(
      (await json('rules', 'list')).some((c: { ruleChain: { id: string } }) => c.ruleChain.id === 'double'),
    );
    assert.equal((await json('rules', 'info', 'double')).ruleChain.name, 'Double');
    assert.equal((await run('rules', 'reload', 'double')).code, 0);
    const executed = await run('rules', 'execute', 'double', '-d', '{"n": 21}');
    assert.equal(executed.code, 0, executed.err);
    assert.deepEqual(JSON.parse(executed.out), { n: 42 });
  });

  it('skills create, list, info, upload and delete', async () => {
    assert.equal(
      (await run('skills', 'create', 'pdf', '-d', 'Work with PDFs', '--content', 'Use pdftotext.')).code,
      0,
    );
    assert.equal((await json('skills', 'info', 'pdf')).content.trim(), 'Use pdftotext.');
    const zip = join(t.home, 'skills.zip');
    await writeFile(
      zip,
      zipSync({
        'notes/SKILL.md': strToU8('---\nname: notes\ndescription: Take notes\n---\nWrite them down.\n'),
      }),
    );
    const upload = await run('skills', 'upload', zip, '-a', 'main');
    assert.equal(upload.code, 0, upload.err);
    assert.match(upload.out, /installed notes/);
    const names = (await json('skills', 'list', '-a', 'main')).map((s: { name: string }) => s.name).sort();
    assert.deepEqual(names, ['notes', 'pdf']);
    assert.equal((await run('skills', 'delete', 'pdf')).code, 0);
    assert.equal((await run('skills', 'delete', 'notes', '-a', 'main')).code, 0);
    assert.deepEqual(await json('skills', 'list', '-a', 'main'), []);
  });

  it('workspace put, ls, cat and rm', async () => {
    const put = await cli(['workspace', 'put', 'notes/todo.md', '-a', 'main', '--url', t.url], t.home, {
      stdin: '# todo\n',
    });
    assert.equal(put.code, 0, put.err);
    assert.equal((await run('workspace', 'cat', 'notes/todo.md')).out, '# todo\n');
    const replace = await cli(['workspace', 'put', 'notes/todo.md', '--url', t.url], t.home, {
      stdin: '# done\n',
    });
    assert.equal(replace.code, 0, replace.err);
    assert.equal((await run('workspace', 'cat', 'notes/todo.md', '-a', 'main')).out, '# done\n');
    assert.deepEqual(
      (await json('workspace', 'ls', 'notes')).map((e: { name: string }) => e.name),
      ['todo.md'],
    );
    assert.equal((await run('workspace', 'rm', 'notes/todo.md')).code, 0);
    const escape = await run('workspace', 'cat', '../../config.yaml');
    assert.equal(escape.code, 1);
  });

  it('cron create, list, get, disable, enable, run and delete', async () => {
    const created = await json('cron', 'create', 'hourly', '-s', '0 0 * * * *', '-m', 'hello', '-a', 'main');
    const id = created.id as string;
    assert.equal((await json('cron', 'list'))[0].id, id);
    assert.equal((await run('cron', 'disable', id)).code, 0);
    assert.equal((await json('cron', 'get', id)).disabled, true);
    assert.equal((await run('cron', 'enable', id)).code, 0);
    const ran = await json('cron', 'run', id);
    assert.equal(ran.lastRun.status, 'success');
    assert.match((await run('cron', 'get', id)).out, /^last run: success /m);
    const bad = await run('cron', 'create', 'x', '-s', '* * *', '-m', 'hi');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /HTTP 400/);
    assert.equal((await run('cron', 'delete', id)).code, 0);
    assert.deepEqual(await json('cron', 'list'), []);
  });

  it('channels list, message channels, bindings set and list, message send errors', async () => {
    const channels = await json('channels', 'list');
    assert.deepEqual(Object.keys(channels).slice(0, 2), ['api', 'feishu']);
    assert.deepEqual(Object.keys(await json('message', 'channels', '-p', 'telegram')), ['telegram']);
    assert.equal((await run('bindings', 'set', 'main', '-p', 'telegram')).code, 0);
    assert.equal((await run('bindings', 'set', 'main', '--default')).code, 0);
    assert.deepEqual(await json('bindings', 'list'), [
      { agentId: 'main', match: { channel: 'telegram' } },
      { agentId: 'main', match: { default: true } },
    ]);
    assert.equal((await run('bindings', 'set', 'main', '-p', 'telegram', '--remove')).code, 0);
    assert.equal((await json('bindings', 'list')).length, 1);
    const send = await run('message', 'send', '42', '-p', 'telegram', '-m', 'hi');
    assert.equal(send.code, 1);
    assert.match(send.err, /^error: .*\(HTTP 4\d\d from /);
  });

  it('status and doctor report the server, the default password and the providers', async () => {
    const status = await json('status');
    assert.equal(status.healthy, true);
    assert.match(status.version, /^\d+\.\d+\.\d+/);
    assert.equal(status.channels.connected, 0);
    const doctor = await cli(
      ['doctor', '--json', '--url', t.url, '--config', join(t.dir, 'config.yaml')],
      t.home,
    );
    const checks = JSON.parse(doctor.out) as Array<{ check: string; status: string }>;
    assert.equal(checks.find((c) => c.check === 'server')?.status, 'ok');
    assert.equal(checks.find((c) => c.check === 'default password')?.status, 'warn');
    assert.equal(doctor.code, 0, doctor.err);
  });
});
