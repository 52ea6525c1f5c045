import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parseConfigText } from '../../src/config/load.ts';
import { chainDefinition } from '../fakes/builders.ts';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import { run, waitFor } from './serve-process.ts';

describe('agent-service serve', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a chat through a configured provider, with the model call on its worker thread', async () => {
    const upstream = await startFakeUpstream({ reply: 'Hello through the worker.' });
    try {
      await writeFile(
        join(dir, 'config.yaml'),
        `models:\n  default_provider: up\n  providers:\n    up:\n      base_url: ${upstream.url}\n      model: m\n`,
      );
      const server = run(['serve', '--config', 'config.yaml', '--port', '0'], dir);
      try {
        const [, url] = await waitFor(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
        const response = await fetch(`${url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
        });
        assert.equal(response.status, 200);
        const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
        assert.equal(body.choices[0]?.message.content, 'Hello through the worker.');
        assert.equal(upstream.requestCount, 1);
      } finally {
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, 0);
      }
    } finally {
      await upstream.close();
    }
  });

  it('writes a default config, serves /health, warns about the default password, and exits 0 on SIGTERM', async () => {
    const server = run(['serve', '--config', 'my.yaml', '--port', '0', '--data', 'store'], dir);
    const [, url] = await waitFor(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const health = await fetch(`${url}/health`);
    assert.equal(await health.text(), 'OK');
    assert.match(server.output(), /Wrote a default configuration to .*my\.yaml/);
    assert.match(server.output(), /WARNING: user "admin" still has the built-in default password/);
    assert.match(server.output(), /agents answer with the built-in demo model/);
    assert.doesNotMatch(server.output(), /requireAuth: false\. Anyone/);
    const written = await readFile(join(dir, 'my.yaml'), 'utf8');
    assert.match(written, /^# Agent Service configuration/);
    assert.equal((await stat(join(dir, 'store', 'secrets', 'jwt-secret'))).mode & 0o777, 0o600);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  it('SIGTERM lets an in-flight request finish before exiting 0', async () => {
    const server = run(['serve', '--port', '0'], dir);
    const [, url] = await waitFor(server, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const chain = chainDefinition('slow', [{ id: 'wait', type: 'delay', configuration: { delayMs: 800 } }]);
    const created = await fetch(`${url}/api/v1/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chain),
    });
    assert.equal(created.status, 201);
    const inFlight = fetch(`${url}/api/v1/rules/slow/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { a: 1 });
    assert.equal(await server.exited, 0);
  });

  it('warns loudly when bound to a non-loopback address without auth', async () => {
    const server = run(['serve', '--host', '0.0.0.0', '--port', '0'], dir);
    await waitFor(server, /listening on/);
    assert.match(server.output(), /WARNING: listening on 0\.0\.0\.0 with security\.requireAuth: false/);
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  });

  it('stops on a bad config with one line per problem and no stack trace', async () => {
    await writeFile(join(dir, 'config.yaml'), 'server:\n  port: "x"\n  colour: red\n  host: ${NOPE_HOST}\n');
    const server = run(['serve'], dir);
    assert.equal(await server.exited, 1);
    assert.match(server.output(), /server\.host \(line 4\): environment variable NOPE_HOST is not set/);
    await writeFile(join(dir, 'config.yaml'), 'server:\n  port: "x"\n  colour: red\n');
    const second = run(['serve'], dir);
    assert.equal(await second.exited, 1);
    assert.match(second.output(), /server\.port \(line 2\): expected number/);
    assert.match(second.output(), /server\.colour \(line 3\): unknown key/);
    assert.doesNotMatch(second.output(), /\n\s+at /);
  });

  it('rejects a bad --port and an unknown flag with a clear message', async () => {
    const badPort = run(['serve', '--port', 'abc'], dir);
    assert.equal(await badPort.exited, 2);
    assert.match(badPort.output(), /--port must be a number/);
    const unknown = run(['serve', '--colour', 'red'], dir);
    assert.equal(await unknown.exited, 2);
    assert.match(unknown.output(), /unknown option '--colour'/);
  });

  it('a config write killed with SIGKILL at any moment leaves the old or the new file, never a torn one', async () => {
    const path = join(dir, 'config.yaml');
    await writeFile(path, '# keep me\nserver:\n  port: 9999\n');
    for (let round = 0; round < 6; round++) {
      const writer = spawn(process.execPath, [
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'config-writer.ts'),
        path,
      ]);
      await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      writer.kill('SIGKILL');
      await new Promise((resolve) => writer.once('exit', resolve));
      const text = await readFile(path, 'utf8');
      const { config } = parseConfigText(text, path, {});
      assert.ok(config.server.port === 9999 || (config.server.port >= 10000 && config.server.port < 15000));
      assert.match(text, /^# keep me/);
    }
  });
});
