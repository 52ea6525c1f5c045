// What `agent-service serve` prints when it starts (issue 20, item 13): the UI address, one
// "listening" line, hints that name the UI and CLI ways to fix them, JSON log lines only when not on
// a terminal (pretty ones on a terminal), no unused data/logs folder; and one JSON line per turn.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');

interface Output {
  stdout: string;
  stderr: string;
}

async function until(check: () => boolean, what: string, output: () => string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('serve: start-up output', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('not on a terminal: one listening line, the UI address, hints naming the UI and CLI, JSON logs, no data/logs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'startup-'));
    dirs.push(dir);
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    });
    const output: Output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += String(chunk)));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const all = () => `${output.stderr}\n---stdout---\n${output.stdout}`;
    try {
      await until(
        () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(output.stderr),
        'the listening line',
        all,
      );
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stderr)?.[1] as string;
      const chat = await fetch(`${url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(chat.status, 200);
      await until(() => /"msg":"turn"/.test(output.stdout), 'the turn line', all);
      const lines = all()
        .split('\n')
        .filter((line) => /listening/i.test(line));
      assert.equal(lines.length, 1, `one listening line:\n${lines.join('\n')}`);
      assert.match(output.stderr, new RegExp(`^Web UI: ${url}/ui/$`, 'm'));
      const password = output.stderr.split('\n').find((line) => line.includes('default password')) ?? '';
      assert.match(password, /Settings/);
      assert.match(password, /agent-service password/);
      const provider = output.stderr.split('\n').find((line) => line.includes('No model provider')) ?? '';
      assert.match(provider, /Settings/);
      assert.match(provider, /agent-service providers add/);
      for (const line of output.stdout.split('\n').filter(Boolean)) JSON.parse(line);
      const turn = output.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line['msg'] === 'turn') as Record<string, unknown>;
      assert.equal(turn['agent'], 'main');
      assert.equal(turn['channel'], 'api');
      assert.equal(turn['outcome'], 'success');
      assert.match(String(turn['traceId']), /^[0-9a-f]{32}$/);
      assert.equal(typeof turn['durationMs'], 'number');
      assert.deepEqual(Object.keys(turn['tokens'] as object), ['input', 'output']);
      assert.equal(existsSync(join(dir, 'data', 'logs')), false, 'data/logs is not created');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('on a terminal: log lines are human-readable, not JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'startup-tty-'));
    dirs.push(dir);
    // `script` runs the server on a pseudo-terminal, as a user's shell would.
    const command = `'${process.execPath}' '${BIN}' serve --port 0`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, TERM: 'dumb' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await until(
        () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(output),
        'the listening line',
        () => output,
      );
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] as string;
      assert.equal((await fetch(`${url}/api/v1/agents`)).status, 200);
      await until(
        () => /INFO\s+request GET \/api\/v1\/agents 200/.test(output),
        'a pretty request line',
        () => output,
      );
      assert.doesNotMatch(output, /\{"level"/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
