// A full disk under the data root (issue 26): writes that fail for want of space are answered with
// one clear error (507) instead of an internal error, and GET /ready says "not ready" while the disk
// is full, then ready again on its own once space is back (the next readiness check sees it).
import { randomBytes } from 'node:crypto';
import { open, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export const DISK_FULL_MESSAGE =
  'the disk of the data root is full: nothing was written; free some space, then try again';

/** Under this much free space the data root counts as full (a write of a session or file may fail). */
export const MIN_FREE_BYTES = 1024 * 1024;
/** Size of the test write that must succeed before a disk seen full counts as writable again. */
const PROBE_BYTES = 64 * 1024;

export type DiskState = 'ok' | 'full';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const FULL_TEXT = /no space left on device|database or disk is full|disk quota exceeded/i;

/** Whether `error` (or an error it was caused by) is a write refused for want of disk space. */
export function isDiskFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
    if (FULL_TEXT.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * The data root's free space. `noteFailure` is told of every failed write; once one failed for want
 * of space, the disk counts as full until a probe write succeeds (checked at each `check`).
 */
export class DiskSpace {
  private failedAt: number | undefined;

  constructor(
    private readonly root: string,
    private readonly minFreeBytes = MIN_FREE_BYTES,
  ) {}

  /** True (and the disk is full from now on) when `error` is a write refused for want of space. */
  noteFailure(error: unknown): boolean {
    if (!isDiskFull(error)) return false;
    this.failedAt ??= Date.now();
    return true;
  }

  /** Whether a write failed for want of space and no probe write succeeded since. */
  get full(): boolean {
    return this.failedAt !== undefined;
  }

  /** 'full' while the free space is under the minimum or, after a failed write, a probe write fails. */
  async check(): Promise<DiskState> {
    const free = await freeBytes(this.root);
    if (free !== undefined && free < this.minFreeBytes) return 'full';
    if (this.failedAt === undefined) return 'ok';
    if (!(await this.probe())) return 'full';
    this.failedAt = undefined;
    return 'ok';
  }

  private async probe(): Promise<boolean> {
    const path = join(this.root, `.disk-probe.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(path, 'w', 0o600);
      try {
        await handle.writeFile(Buffer.alloc(PROBE_BYTES));
        await handle.sync();
      } finally {
        await handle.close();
      }
      return true;
    } catch {
      return false;
    } finally {
      await unlink(path).catch(() => undefined);
    }
  }
}

/** Bytes an unprivileged writer may still use on the root's file system; undefined if unknown. */
async function freeBytes(root: string): Promise<number | undefined> {
  try {
    const stats = await statfs(root);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}
