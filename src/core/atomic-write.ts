import { constants } from 'node:fs';
import { open, readdir, rename, mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KeyedMutex } from './keyed-mutex.ts';

// Writes are serialized per path so two writers never interleave their renames.
const writes = new KeyedMutex();

/**
 * Writes a file so that a crash at any moment leaves either the old or the new content:
 * write a temp file in the same folder, fsync it, rename it over the target, fsync the folder.
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  while (paused) await paused;
  inflight += 1;
  try {
    await writes.run(path, () => writeNow(path, content, options.mode ?? 0o644));
  } finally {
    inflight -= 1;
    if (inflight === 0) drained?.();
  }
}

// The write pause of a backup: new writes wait, writes under way finish, then the copy is taken.
let paused: Promise<void> | undefined;
let inflight = 0;
let drained: (() => void) | undefined;

/** Runs `work` while no atomic write of this process is under way or starts. */
export async function withWritesPaused<T>(work: () => Promise<T>): Promise<T> {
  while (paused) await paused;
  let resume = (): void => undefined;
  paused = new Promise<void>((resolve) => {
    resume = resolve;
  });
  try {
    while (inflight > 0) await new Promise<void>((resolve) => (drained = resolve));
    return await work();
  } finally {
    drained = undefined;
    paused = undefined;
    resume();
  }
}

async function writeNow(path: string, content: string | Uint8Array, mode: number): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    // A write cut short (a full disk): the target keeps its old content, and the partial temp
    // file must not hold on to the space it took.
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  // O_DIRECTORY: a folder swapped for a FIFO is refused at once instead of blocking a thread.
  const dir = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY).catch(() => undefined);
  if (dir) {
    await dir.sync().catch(() => undefined);
    await dir.close();
  }
}

/** The temp files writeNow makes: `.<name>.<12 hex digits>.tmp`. */
const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;
/** Folders a cleanup never walks into: they are not ours and may be huge. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * Removes the temp files of writes a crash interrupted. Run at start, before anything writes.
 * Walks at most `limit` entries, so a huge workspace cannot delay the start for long. With
 * `olderThanMs`, younger temp files are kept: other processes sharing the folder may be writing them.
 */
export async function removeStaleTempFiles(
  folder: string,
  options: { recursive: boolean; limit?: number; olderThanMs?: number },
): Promise<number> {
  let budget = options.limit ?? 100_000;
  let removed = 0;
  const pending = [folder];
  while (pending.length > 0 && budget > 0) {
    const current = pending.pop() as string;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (--budget <= 0) break;
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (options.recursive && !SKIPPED.has(entry.name)) pending.push(path);
      } else if (entry.isFile() && TEMP_NAME.test(entry.name)) {
        if (options.olderThanMs !== undefined) {
          const modified = await stat(path).then(
            (info) => info.mtimeMs,
            () => Date.now(),
          );
          if (Date.now() - modified < options.olderThanMs) continue;
        }
        await unlink(path).then(
          () => (removed += 1),
          () => undefined,
        );
      }
    }
  }
  return removed;
}
