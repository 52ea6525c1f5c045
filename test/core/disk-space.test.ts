// What counts as a full disk or an unreachable database (the errors mapped to 507 and 503), and the
// readiness state of a data root's disk: full after a refused write until a probe write succeeds.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DiskSpace, isDiskFull } from '../../src/core/disk-space.ts';
import { isDatabaseUnreachable } from '../../src/storage/database-unreachable.ts';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('disk full and database unreachable errors', () => {
  it('a full disk is ENOSPC, EDQUOT or SQLITE_FULL, also as the cause of another error', () => {
    assert.equal(isDiskFull(withCode('ENOSPC: no space left on device, write', 'ENOSPC')), true);
    assert.equal(isDiskFull(withCode('disk quota exceeded', 'EDQUOT')), true);
    assert.equal(isDiskFull(withCode('database or disk is full', 'SQLITE_FULL')), true);
    assert.equal(isDiskFull(new Error('saving failed', { cause: withCode('x', 'ENOSPC') })), true);
    assert.equal(isDiskFull(withCode('permission denied', 'EACCES')), false);
    assert.equal(isDiskFull(new Error('cannot rollback - no transaction is active')), false);
    assert.equal(isDiskFull('ENOSPC'), false);
  });

  it('an unreachable database is a socket failure or PostgreSQL connection error, not a bad query', () => {
    assert.equal(isDatabaseUnreachable(withCode('read ECONNRESET', 'ECONNRESET')), true);
    assert.equal(isDatabaseUnreachable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDatabaseUnreachable(withCode('the database system is shutting down', '57P03')), true);
    assert.equal(isDatabaseUnreachable(withCode('connection failure', '08006')), true);
    assert.equal(isDatabaseUnreachable(withCode('relation "x" does not exist', '42P01')), false);
    assert.equal(isDatabaseUnreachable(withCode('duplicate key value', '23505')), false);
  });
});

describe('DiskSpace', () => {
  it('is ok, full after a refused write, and ok again once a probe write succeeds (leaving no file)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'disk-space-'));
    try {
      const disk = new DiskSpace(root);
      assert.equal(await disk.check(), 'ok');
      assert.equal(disk.noteFailure(withCode('permission denied', 'EACCES')), false);
      assert.equal(disk.full, false);
      assert.equal(disk.noteFailure(withCode('ENOSPC: no space left on device', 'ENOSPC')), true);
      assert.equal(disk.full, true);
      assert.equal(await disk.check(), 'ok', 'the probe write succeeds here');
      assert.equal(disk.full, false);
      assert.deepEqual(await readdir(root), []);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('is full while less than the minimum is free, and when the probe write fails', async () => {
    const root = await mkdtemp(join(tmpdir(), 'disk-space-'));
    try {
      assert.equal(await new DiskSpace(root, Number.MAX_SAFE_INTEGER).check(), 'full');
      const gone = new DiskSpace(join(root, 'missing', 'folder'));
      gone.noteFailure(withCode('no space left on device', 'ENOSPC'));
      assert.equal(await gone.check(), 'full');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
