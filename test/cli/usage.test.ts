import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cli, cliEnv, startTestServer, type TestServer } from './cli-harness.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('agent-service: usage, help and errors (no server needed)', () => {
  let home: string;
  let down: number;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'cli-usage-'));
    down = await closedPort();
  });
  after(() => rm(home, { recursive: true, force: true }));

  it('--version and version print the package version', async () => {
    const { version } = JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8'));
    const flag = await cli(['--version'], home);
    assert.equal(flag.code, 0);
    assert.equal(flag.out, `${version}\n`);
    const command = await cli(['version', '--json'], home);
    assert.equal(command.code, 0);
    assert.equal(JSON.parse(command.out).version, version);
  });

  it('--help lists every command group, and each command has its own help', async () => {
    const help = await cli(['--help'], home);
    assert.equal(help.code, 0);
    for (const name of [
      'serve|start',
      'status',
      'doctor',
      'config',
      'providers',
      'agents',
      'agent',
      'rules',
      'skills',
      'workspace',
      'cron',
      'message',
      'channels',
      'bindings',
      'sessions',
      'login',
      'logout',
      'api-key',
      'password',
      'service',
    ])
      assert.match(help.out, new RegExp(`^  ${name.replace('|', '\\|')}\\b`, 'm'), name);
    const cron = await cli(['cron', 'create', '--help'], home);
    assert.equal(cron.code, 0);
    assert.match(cron.out, /-s, --schedule <cron>/);
    assert.match(cron.out, /Example:/);
  });

  it('a mistyped command exits 2 with a suggestion', async () => {
    const result = await cli(['stauts'], home);
    assert.equal(result.code, 2);
    assert.match(result.err, /unknown command 'stauts'\n\(Did you mean status\?\)/);
    const sub = await cli(['cron', 'lsit'], home);
    assert.equal(sub.code, 2);
    assert.match(sub.err, /Did you mean list\?/);
  });

  it('wrong arguments exit 2: unknown option, missing argument, missing required option, bad --url', async () => {
    const option = await cli(['agents', 'list', '--jsn'], home);
    assert.equal(option.code, 2);
    assert.match(option.err, /unknown option '--jsn'\n\(Did you mean --json\?\)/);
    const argument = await cli(['agents', 'info'], home);
    assert.equal(argument.code, 2);
    assert.match(argument.err, /missing required argument 'id'/);
    const required = await cli(['cron', 'create', 'daily', '-m', 'hi'], home);
    assert.equal(required.code, 2);
    assert.match(required.err, /required option '-s, --schedule <cron>' not specified/);
    const url = await cli(['status', '--url', 'ftp://host'], home);
    assert.equal(url.code, 2);
    assert.equal(url.err, 'error: --url: "ftp://host" must be an http or https address\n');
    const message = await cli(['message', 'send', 'c1', '-p', 'telegram'], home);
    assert.equal(message.code, 2);
    assert.equal(message.err, 'error: give exactly one of -m TEXT, -i IMAGE or -f FILE\n');
    const port = await cli(['serve', '--port', 'abc'], home);
    assert.equal(port.code, 2);
    assert.match(port.err, /--port must be a number from 0 to 65535/);
  });

  it('a server that is down is one line on stderr naming the address and where it came from, exit 1', async () => {
    const flag = await cli(['status', '--url', `127.0.0.1:${down}`], home);
    assert.equal(flag.code, 1);
    assert.equal(
      flag.err,
      `error: cannot reach http://127.0.0.1:${down} (connection refused); is the server running? start it with: agent-service serve\n`,
    );
    const fallback = await cli(['agents', 'list'], home, {
      env: { SERVICE_URL: `http://127.0.0.1:${down}/api/v1/` },
    });
    assert.equal(fallback.code, 1);
    assert.match(
      fallback.err,
      new RegExp(
        `^error: cannot reach http://127\\.0\\.0\\.1:${down} \\(connection refused\\) \\(address from SERVICE_URL; set --url or SERVICE_URL\\)`,
      ),
    );
    assert.equal(fallback.err.split('\n').length, 2, 'one line');
    const project = join(home, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'config.yaml'), `server:\n  port: ${down}\n`);
    const fromFile = await cli(['status'], home, { cwd: project });
    assert.equal(fromFile.code, 1);
    assert.match(
      fromFile.err,
      new RegExp(
        `cannot reach http://127\\.0\\.0\\.1:${down} \\(connection refused\\) \\(address from config file .*project/config\\.yaml;`,
      ),
    );
    const none = await cli(['status'], home);
    assert.match(
      none.err,
      /cannot reach http:\/\/127\.0\.0\.1:9527 .*the default address: no --url, SERVICE_URL or config file/,
    );
  });
});

describe('agent-service: addresses, pipes and colours against a server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('security:\n  requireAuth: false\n');
  });
  after(() => t.close());

  it('--url accepts host:port, a base URL and a URL ending in /api/v1', async () => {
    const port = new URL(t.url).port;
    for (const url of [`127.0.0.1:${port}`, `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/api/v1`]) {
      const result = await cli(['status', '--json', '--url', url], t.home);
      assert.equal(result.code, 0, `${url}: ${result.err}`);
      const status = JSON.parse(result.out);
      assert.equal(status.url, `http://127.0.0.1:${port}`);
      assert.equal(status.healthy, true);
      assert.deepEqual(status.agents, { total: 1, loaded: 1, notLoaded: [] });
    }
  });

  it('read commands print tab-separated rows when piped, without colour codes', async () => {
    const result = await cli(['agents', 'list', '--url', t.url], t.home, { env: { FORCE_COLOR: '1' } });
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out, 'main\tMain agent\t(default)\tloaded\n');
    assert.ok(!result.out.includes('\u001b['));
  });

  it('a reader that closes the pipe early (| head) ends the program quietly with exit 0', async () => {
    const workspace = join(t.server.store.current.data.root_dir, 'agents', 'main', 'workspace');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'big.txt'), 'line of text\n'.repeat(200_000));
    // Asynchronous: the server runs in this process and must keep answering.
    const stdout = await new Promise<string>((resolve) => {
      const child = spawn(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${BIN}" workspace cat big.txt --url ${t.url} 2>"$ERR" | head -n 2; echo "status=\${PIPESTATUS[0]}"`,
        ],
        { env: { ...cliEnv(t.home), ERR: join(t.home, 'stderr.txt') } },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('close', () => resolve(out));
    });
    assert.equal(stdout, 'line of text\nline of text\nstatus=0\n');
    assert.equal(await readFile(join(t.home, 'stderr.txt'), 'utf8'), '');
  });
});
