import { open, rename, mkdir, unlink } from 'node:fs/promises';
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
  await writes.run(path, () => writeNow(path, content, options.mode ?? 0o644));
}

async function writeNow(path: string, content: string | Uint8Array, mode: number): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const dir = await open(folder, 'r').catch(() => undefined);
  if (dir) {
    await dir.sync().catch(() => undefined);
    await dir.close();
  }
}
