// Two servers on one data root (the embedded mode): the second start stops with an error naming the
// first (pid, host:port); the lock goes with the first server's shutdown, and a stale lock of a
// process that is gone is taken over.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LOCK_FILE, lockDataRoot } from '../../src/storage/data-root-lock.ts';
import { run, waitFor, type Started } from '../server/serve-process.ts';

/** Starts `serve` in `cwd` on a random port with its data root in `store`. */
const serve = (cwd: string): Started =>
  run(['serve', '--config', 'config.yaml', '--port', '0', '--data', 'store'], cwd);

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('one server per data root', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lock-'));
    await writeFile(join(dir, 'config.yaml'), 'server:\n  log_level: silent\n');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a second server on the same data root stops with an error naming the first; the lock goes at shutdown', async () => {
    const first = serve(dir);
    try {
      const [, url] = await waitFor(first, /listening on (http:\/\/(127\.0\.0\.1:\d+))/);
      const address = new URL(url ?? '').host;
      const lock = JSON.parse(await readFile(join(dir, 'store', LOCK_FILE), 'utf8'));
      assert.equal(lock.pid, first.child.pid);
      assert.equal(lock.address, address);
      assert.ok(!Number.isNaN(Date.parse(lock.startedAt)));

      const second = serve(dir);
      const code = await second.exited;
      assert.notEqual(code, 0);
      assert.match(
        second.output(),
        new RegExp(
          `in use by another server \\(pid ${first.child.pid}, listening on ${address.replaceAll('.', '\\.')}, started `,
        ),
      );
      assert.doesNotMatch(second.output(), /listening on http/);
      assert.equal((await fetch(`${url}/health`)).status, 200, 'the first server is unharmed');
    } finally {
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
    }
    await assert.rejects(stat(join(dir, 'store', LOCK_FILE)), { code: 'ENOENT' });
    const third = serve(dir);
    try {
      await waitFor(third, /listening on http/);
    } finally {
      third.child.kill('SIGTERM');
      assert.equal(await third.exited, 0);
    }
  });

  it("a stale lock of a process that is gone is taken over; a live one is refused; release leaves others' locks", async () => {
    const root = join(dir, 'root');
    await rm(root, { recursive: true, force: true });
    await import('node:fs/promises').then(({ mkdir }) => mkdir(root));
    const path = join(root, LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({ pid: deadPid(), startedAt: '2020-01-01T00:00:00.000Z', address: '127.0.0.1:1' }),
    );
    const lock = await lockDataRoot(root, '127.0.0.1:9527');
    assert.equal(JSON.parse(await readFile(path, 'utf8')).pid, process.pid);
    await assert.rejects(lockDataRoot(root, '127.0.0.1:9528'), (error: Error) =>
      error.message.includes(`pid ${process.pid}, listening on 127.0.0.1:9527`),
    );
    await lock.update('127.0.0.1:4000');
    assert.equal(JSON.parse(await readFile(path, 'utf8')).address, '127.0.0.1:4000');
    await lock.release();
    await assert.rejects(stat(path), { code: 'ENOENT' });

    // A lock another process took after ours is not removed by our release.
    const ours = await lockDataRoot(root, 'a:1');
    await writeFile(path, JSON.stringify({ pid: 1, startedAt: 'x', address: 'b:2' }));
    await ours.release();
    assert.equal(JSON.parse(await readFile(path, 'utf8')).address, 'b:2');
  });
});
