// Reads an uploaded zip of skills with every check done before anything is written: entry paths
// (no "..", absolute paths, backslashes or drive letters), entry types (no links or devices, read
// from the Unix mode in the external attributes), entry count, and inflated sizes (declared and
// actual, total and per-entry ratio) so a zip bomb is refused while it inflates.
import type { Inflate as InflateClass } from 'fflate';
import { invalid } from '../core/errors.ts';

export const MAX_ARCHIVE_ENTRIES = 1000;
export const MAX_INFLATED_BYTES = 50 * 1024 * 1024;
/** Entries larger than this must not inflate more than MAX_RATIO times their compressed size. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
const MAX_RATIO = 200;
/** Compressed input given to the inflater at once, which bounds the output of one step. */
const INFLATE_STEP = 4096;

export interface ArchiveFile {
  path: string;
  data: Uint8Array;
}

interface CentralEntry {
  path: string;
  isDir: boolean;
  compression: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function findEndRecord(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= Math.max(0, last - 0xffff); at -= 1) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  throw invalid('the file is not a zip archive');
}

function checkPath(path: string): void {
  const bad = (why: string) => invalid(`archive entry "${path}" ${why}; nothing was installed`);
  if (path.includes('\0')) throw bad('has a NUL byte');
  if (path.includes('\\')) throw bad('has a backslash');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw bad('has an absolute path');
  const segments = path.replace(/\/$/, '').split('/');
  if (segments.some((segment) => segment === '..')) throw bad('has a ".." segment');
  if (segments.some((segment) => segment === '' || segment === '.')) throw bad('has an empty or "." segment');
}

function centralEntries(bytes: Uint8Array): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 22) throw invalid('the file is not a zip archive');
  const end = findEndRecord(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw invalid('zip64 archives are not supported');
  if (count > MAX_ARCHIVE_ENTRIES) throw invalid(`the archive has more than ${MAX_ARCHIVE_ENTRIES} entries`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const entries: CentralEntry[] = [];
  let declaredTotal = 0;
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > bytes.byteLength || view.getUint32(at, true) !== 0x02014b50) {
      throw invalid('the zip archive is damaged (bad central directory)');
    }
    const madeBy = view.getUint16(at + 4, true) >> 8;
    const flags = view.getUint16(at + 8, true);
    const compression = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const localOffset = view.getUint32(at + 42, true);
    let path: string;
    try {
      path = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    } catch {
      throw invalid('an archive entry name is not UTF-8');
    }
    at += 46 + nameLength + extraLength + commentLength;
    checkPath(path);
    const mode = madeBy === 3 ? external >>> 16 : 0;
    const type = mode & S_IFMT;
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) {
      throw invalid(`archive entry "${path}" is a link or special file; nothing was installed`);
    }
    const isDir = path.endsWith('/') || type === S_IFDIR || (external & 0x10) !== 0;
    if (flags & 1) throw invalid(`archive entry "${path}" is encrypted`);
    if (compression !== 0 && compression !== 8) {
      throw invalid(`archive entry "${path}" uses an unsupported compression method`);
    }
    if (size === 0xffffffff || compressedSize === 0xffffffff)
      throw invalid('zip64 archives are not supported');
    if (size > RATIO_FLOOR_BYTES && size > compressedSize * MAX_RATIO) {
      throw invalid(`archive entry "${path}" inflates more than ${MAX_RATIO} times (zip bomb?)`);
    }
    declaredTotal += size;
    if (declaredTotal > MAX_INFLATED_BYTES) {
      throw invalid(`the archive inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    }
    entries.push({ path, isDir, compression, compressedSize, size, localOffset });
  }
  return entries;
}

// Inflates in small steps and stops as soon as the output passes what the entry declared, so an
// entry that lies about its size costs at most one step more.
function inflateEntry(Inflate: typeof InflateClass, entry: CentralEntry, data: Uint8Array): Uint8Array {
  if (entry.compression === 0) {
    if (data.byteLength !== entry.size) throw invalid(`archive entry "${entry.path}" is damaged`);
    return data;
  }
  const out = new Uint8Array(entry.size);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.byteLength > entry.size) {
      throw invalid(`archive entry "${entry.path}" inflates past its declared size (zip bomb?)`);
    }
    out.set(chunk, written);
    written += chunk.byteLength;
  });
  try {
    for (let at = 0; at < data.byteLength; at += INFLATE_STEP) {
      const end = Math.min(at + INFLATE_STEP, data.byteLength);
      inflater.push(data.subarray(at, end), end === data.byteLength);
    }
    if (data.byteLength === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof Error && error.name === 'AppError') throw error;
    throw invalid(`archive entry "${entry.path}" is damaged`);
  }
  if (written !== entry.size) throw invalid(`archive entry "${entry.path}" is damaged`);
  return out;
}

/**
 * The files of a zip archive after every check; directories are implied by the paths. fflate is
 * loaded with the first upload, not at start.
 */
export async function readSkillArchive(bytes: Uint8Array): Promise<ArchiveFile[]> {
  const { Inflate } = await import('fflate');
  const entries = centralEntries(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const files: ArchiveFile[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.isDir) continue;
    if (seen.has(entry.path)) throw invalid(`archive entry "${entry.path}" appears twice`);
    seen.add(entry.path);
    const at = entry.localOffset;
    if (at + 30 > bytes.byteLength || view.getUint32(at, true) !== 0x04034b50) {
      throw invalid(`archive entry "${entry.path}" is damaged`);
    }
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > bytes.byteLength) throw invalid(`archive entry "${entry.path}" is damaged`);
    files.push({ path: entry.path, data: inflateEntry(Inflate, entry, bytes.subarray(start, end)) });
  }
  // "s1/a" and "s1/a/b" cannot both be written: refuse before anything is.
  for (const path of seen) {
    for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
      const folder = path.slice(0, slash);
      if (seen.has(folder)) throw invalid(`archive entry "${folder}" is both a file and a folder`);
    }
  }
  return files;
}
