// The server's log ring over GET /logs/server and `agent-service logs` (incl. --follow seeing a new
// line), the rotating log file, and GET /version.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RotatingFile } from '../../src/core/rotating-file.ts';
import { LogRing } from '../../src/http/log-ring.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { cli, start, waitFor } from '../cli/cli-harness.ts';

describe('server logs', () => {
  let dir: string;
  let server: RunningServer;
  let stdout = '';
  const run = (...args: string[]) => cli([...args, '--url', server.url], dir);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'logs-'));
    await writeFile(
      join(dir, 'config.yaml'),
      'security:\n  requireAuth: false\nserver:\n  log_file: server.log\n  log_file_max_mb: 0.001\n  log_file_keep: 2\n',
    );
    server = await startServer({
      config: join(dir, 'config.yaml'),
      port: 0,
      cwd: dir,
      env: {},
      say: () => undefined,
      logLevel: 'info',
      logStream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          stdout += chunk.toString();
          done();
        },
      }),
    });
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET /logs/server answers the recent lines, filtered by level, with no secret', async () => {
    await fetch(`${server.url}/api/v1/agents`, { headers: { authorization: 'Bearer sk-not-to-be-seen' } });
    const answer = (await (await fetch(`${server.url}/api/v1/logs/server?limit=50`)).json()) as {
      data: Array<{ seq: number; level: string; msg: string; fields: Record<string, unknown> }>;
      capacity: number;
      file: string;
    };
    assert.ok(answer.data.some((line) => line.msg === 'request' && line.fields['url'] === '/api/v1/agents'));
    assert.equal(answer.file, join(dir, 'data', 'logs', 'server.log'));
    assert.doesNotMatch(JSON.stringify(answer), /sk-not-to-be-seen/);
    // The same lines still reach stdout.
    assert.match(stdout, /"msg":"request"/);
    const warn = (await (await fetch(`${server.url}/api/v1/logs/server?level=warn`)).json()) as { data: unknown[] };
    assert.ok(warn.data.every((line) => ['warn', 'error', 'fatal'].includes((line as { level: string }).level)));
    const bad = await fetch(`${server.url}/api/v1/logs/server?level=loud`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /level/);
    // The rule-chain run logs keep their path.
    assert.equal((await fetch(`${server.url}/api/v1/logs/runs`)).status, 200);
  });

  it('agent-service logs prints them; --json one object a line; --follow sees a new line', async () => {
    const plain = await run('logs', '-n', '20');
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, /INFO +request .*url=\/api\/v1\/logs\/server/);
    const json = await run('logs', '--json', '--level', 'info');
    const lines = json.out.trim().split('\n').map((line) => JSON.parse(line) as { level: string });
    assert.ok(lines.length > 0 && lines.every((line) => line.level === 'info' || line.level === 'warn'));
    assert.equal((await run('logs', '--level', 'loud')).code, 2);

    const child = start(['logs', '--follow', '--json', '-n', '1', '--url', server.url], dir);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out, /\n/);
    await fetch(`${server.url}/api/v1/agents/followed-marker`);
    await waitFor(() => out, /followed-marker/);
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGINT');
    await closed;
  });

  it('GET /version names the version and the schema; /health stays "OK"', async () => {
    const version = (await (await fetch(`${server.url}/api/v1/version`)).json()) as {
      version: string;
      mode: string;
      database: { dialect: string; schema: string; pending: number };
    };
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(version.version, pkg.version);
    assert.equal(version.mode, 'single');
    assert.equal(version.database.dialect, 'sqlite');
    assert.equal(version.database.pending, 0);
    assert.ok(version.database.schema);
    assert.equal(await (await fetch(`${server.url}/health`)).text(), 'OK');
    const cliVersion = await cli(['--version'], dir);
    assert.equal(cliVersion.out.trim(), pkg.version);
  });

  it('the log file rotates by size and keeps N files', async () => {
    const files = await readdir(join(dir, 'data', 'logs'));
    assert.ok(files.includes('server.log'));
    const own = await mkdtemp(join(tmpdir(), 'rotate-'));
    const file = new RotatingFile(join(own, 'a.log'), 100, 2);
    for (let index = 0; index < 10; index++) file.write(`${'x'.repeat(60)}${index}\n`);
    file.close();
    assert.deepEqual((await readdir(own)).sort(), ['a.log', 'a.log.1', 'a.log.2']);
    assert.match(await readFile(join(own, 'a.log'), 'utf8'), /9\n$/);
    assert.match(await readFile(join(own, 'a.log.1'), 'utf8'), /8\n$/);
    await rm(own, { recursive: true, force: true });
  });

  it('the ring keeps only its capacity', () => {
    const ring = new LogRing(3);
    for (let index = 0; index < 5; index++) ring.write(`{"level":30,"time":1,"msg":"m${index}"}\n`);
    assert.deepEqual(ring.recent().map((line) => line.msg), ['m2', 'm3', 'm4']);
    assert.deepEqual(ring.recent({ after: 4 }).map((line) => line.msg), ['m4']);
  });
});
