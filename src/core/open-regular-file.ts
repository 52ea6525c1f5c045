// Opening a FIFO waits for a writer, on a libuv thread: four such opens stall every file operation
// of the process. So files named by agents or users are opened with O_NONBLOCK (a FIFO then opens
// at once) and read only when the handle turns out to be a regular file.
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { AppError } from './errors.ts';

// O_NOFOLLOW: callers pass a path whose links they resolved already, so a link met here was swapped
// in since then (by an agent's shell, say) and may lead anywhere.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0);

export interface RegularFile {
  handle: FileHandle;
  /** Taken from the open handle, so it describes the file that will be read. */
  info: Stats;
}

/**
 * Opens a resolved path for reading, without ever waiting on a FIFO, and only if it is a regular
 * file; otherwise throws AppError('invalid') naming the file as `label`. The caller closes the handle.
 */
export async function openRegularFile(path: string, label: string): Promise<RegularFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AppError('not-found', `no such file: ${label}`);
    if (code === 'ELOOP') throw new AppError('invalid', `${label} is not a regular file`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new AppError('invalid', `${label} is a directory`);
    if (!info.isFile()) throw new AppError('invalid', `${label} is not a regular file`);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The first `maxBytes` bytes of a regular file (all of it when shorter), opened as openRegularFile does. */
export async function readRegularFile(path: string, label: string, maxBytes: number): Promise<Buffer> {
  const { handle, info } = await openRegularFile(path, label);
  try {
    const buffer = Buffer.alloc(Math.min(maxBytes, info.size));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
