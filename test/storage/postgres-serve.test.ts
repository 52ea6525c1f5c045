import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { SessionStore } from '../../src/storage/session-store.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');

/** Runs `agent-service serve` until it listens; stop() sends SIGTERM and resolves with the exit code. */
async function serve(dir: string): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', 'config.yaml', '--port', '0'], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    if (match?.[1]) {
      return {
        url: match[1],
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start; output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('agent-service serve on PostgreSQL', () => {
  let dir: string | undefined;
  let database: TestDatabase | undefined;
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = database = upstream = undefined;
  });

  it('keeps a conversation in the database across a restart, and no database file on disk', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-service-pg-'));
    database = await createTestDatabase('postgres', process.env);
    upstream = await startFakeUpstream({ reply: 'Noted.' });
    await writeFile(
      join(dir, 'config.yaml'),
      stringify({
        data: { root_dir: './data', database_url: database.databaseUrl },
        models: upstream.modelsConfig(),
      }),
    );
    const chat = (url: string, content: string) =>
      fetch(`${url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', sessionId: 'ada', messages: [{ role: 'user', content }] }),
      });

    const first = await serve(dir);
    assert.equal((await chat(first.url, 'my name is Ada')).status, 200);
    assert.equal(await first.stop(), 0);

    const second = await serve(dir);
    try {
      const response = await chat(second.url, 'what is my name?');
      assert.equal(response.status, 200);
      const messages = (upstream.requests.at(-1)?.['messages'] ?? []) as Array<{
        role: string;
        content: string;
      }>;
      assert.deepEqual(
        messages
          .filter((message) => message.role !== 'system')
          .map((message) => [message.role, message.content]),
        [
          ['user', 'my name is Ada'],
          ['assistant', 'Noted.'],
          ['user', 'what is my name?'],
        ],
      );
    } finally {
      assert.equal(await second.stop(), 0);
    }
    const db = await database.open();
    const history = await new SessionStore(db).load('agent:main:channel:api:scope:per_peer:ada');
    assert.equal(history.length, 4);
    assert.deepEqual(history.at(-1), { role: 'assistant', content: 'Noted.' });
    assert.ok(!(await readdir(join(dir, 'data'))).some((name) => name.endsWith('.db')));
  });
});
