import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the folder the walk started in, with `/` separators. */
  relativePath: string;
  /** The entry is a symbolic link (never followed by the walk). */
  symlink: boolean;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Folder names not descended into (matched on the name alone). */
  skipFolders?: ReadonlySet<string>;
  /** Stop after visiting this many entries, so a huge tree cannot stall a tool. */
  maxEntries?: number;
}

// Callers match each entry (against a glob, say) between steps of the walk, and a folder of many
// thousand entries is handed out without any I/O wait; so the walk gives the event loop a turn
// whenever it has held the thread this long.
const SLICE_MS = 20;

/** Folders that are almost never what an agent means and can hold hundreds of thousands of files. */
export const DEFAULT_SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** The default skipped folders, except any the pattern names explicitly. */
export function foldersToSkip(pattern: string): ReadonlySet<string> {
  return new Set([...DEFAULT_SKIPPED_FOLDERS].filter((name) => !pattern.includes(name)));
}

/**
 * Lists files (and links) below a folder, depth first. Symbolic links are reported but never
 * followed, so a walk cannot leave the workspace or loop.
 */
export async function* walkFiles(start: string, options: WalkOptions): AsyncGenerator<WalkedFile> {
  const maxEntries = options.maxEntries ?? 100_000;
  const stack: Array<{ path: string; relativePath: string }> = [{ path: start, relativePath: '' }];
  let visited = 0;
  let sliceStart = performance.now();
  while (stack.length > 0) {
    options.signal.throwIfAborted();
    const folder = stack.pop() as { path: string; relativePath: string };
    const entries = await readdir(folder.path, { withFileTypes: true }).catch(() => []);
    sliceStart = performance.now(); // waiting for readdir gave the event loop its turn
    entries.sort((left, right) => (left.name < right.name ? 1 : -1));
    for (const entry of entries) {
      visited += 1;
      if (visited > maxEntries) return;
      if (performance.now() - sliceStart > SLICE_MS) {
        await nextTurn();
        options.signal.throwIfAborted();
        sliceStart = performance.now();
      }
      const path = join(folder.path, entry.name);
      const relativePath = folder.relativePath ? `${folder.relativePath}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!options.skipFolders?.has(entry.name)) stack.push({ path, relativePath });
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        yield { path, relativePath, symlink: entry.isSymbolicLink() };
      }
    }
  }
}
