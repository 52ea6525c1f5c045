// The files of an agent's workspace, for the REST API. Every requested path is resolved inside the
// workspace after following links (tools/workspace-path.ts), so no path, `..` or link reaches out.
// Delete and rename act on the entry itself: a link is removed or renamed, never what it points to.
import type { Stats } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { AppError, conflict, forbidden, invalid, isAppError, notFound } from '../../core/errors.ts';
import { resolveInWorkspace } from '../../tools/workspace-path.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { WorkspaceEntry } from './workspace.schema.ts';
import { openRegularFile, type RegularFile } from '../../core/open-regular-file.ts';

/** Largest file returned as text by `readText`; bigger files are for download only. */
export const MAX_TEXT_BYTES = 5 * 1024 * 1024;

export interface Download {
  /** The file's own name on disk (a link's target name). */
  name: string;
  size: number;
  stream: Readable;
}

export class WorkspaceService {
  constructor(
    private readonly agents: AgentCheck,
    private readonly workspace: (agentId: string) => Promise<string>,
  ) {}

  /** Directories first, then files, each by name; links inside the workspace show their target. */
  list(agentId: string, requested: string): Promise<WorkspaceEntry[]> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const folder = await resolveInWorkspace(root, requested, { mustExist: true });
      if (!(await stat(folder)).isDirectory()) throw invalid(`${requested} is not a directory`);
      const names = await readdir(folder);
      const entries = await Promise.all(names.map((name) => describe(root, join(folder, name), name)));
      return entries
        .filter((entry): entry is WorkspaceEntry => entry !== undefined)
        .sort((a, b) => Number(b.isDir) - Number(a.isDir) || compareText(a.name, b.name));
    });
  }

  /** The content of a UTF-8 text file of at most MAX_TEXT_BYTES. */
  readText(agentId: string, requested: string): Promise<string> {
    return this.guarded(requested, async () => {
      const { handle } = await this.openFile(agentId, requested);
      try {
        const tooLarge = (size: number) =>
          new AppError(
            'too-large',
            `${requested} is ${size} bytes; files over ${MAX_TEXT_BYTES} bytes can only be downloaded`,
          );
        const { size } = await handle.stat();
        if (size > MAX_TEXT_BYTES) throw tooLarge(size);
        const bytes = await handle.readFile();
        if (bytes.length > MAX_TEXT_BYTES) throw tooLarge(bytes.length);
        if (bytes.includes(0)) throw new AppError('unsupported-media', `${requested} is a binary file`);
        try {
          // ignoreBOM keeps a byte order mark in the text, so saving it back keeps the file as it was.
          return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch {
          throw new AppError('unsupported-media', `${requested} is not UTF-8 text`);
        }
      } finally {
        await handle.close();
      }
    });
  }

  /** Replaces the content of an existing file atomically, keeping its mode. */
  update(agentId: string, requested: string, content: string): Promise<void> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const file = await resolveInWorkspace(root, requested, { mustExist: true });
      const info = await stat(file);
      requireRegularFile(info, requested);
      await writeFileAtomic(file, content, { mode: info.mode & 0o777 });
    });
  }

  /** Creates a new file and any missing parent folders; an existing entry is a conflict. */
  createFile(agentId: string, requested: string, content: string): Promise<void> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const file = await resolveInWorkspace(root, requested);
      await this.requireAbsent(file, requested);
      await makeFolder(dirname(file), requested);
      // Checked just above; a file created in between by the agent itself would be replaced whole.
      await writeFileAtomic(file, content);
    });
  }

  /** Creates a folder and any missing parent folders; an existing entry is a conflict. */
  createDir(agentId: string, requested: string): Promise<void> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const folder = await resolveInWorkspace(root, requested);
      await this.requireAbsent(folder, requested);
      await makeFolder(folder, requested);
    });
  }

  /** Deletes a file, a link (not its target) or a whole folder; never the workspace root. */
  remove(agentId: string, requested: string): Promise<void> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const { path } = await entryOf(root, requested, 'deleted');
      await lstat(path);
      // rm does not follow links, in the entry itself or anywhere below a deleted folder.
      await rm(path, { recursive: true });
    });
  }

  /** Renames an entry (a link itself, not its target) within its folder. */
  rename(agentId: string, requested: string, newName: string): Promise<void> {
    return this.guarded(requested, async () => {
      const root = await this.root(agentId);
      const { folder, path } = await entryOf(root, requested, 'renamed');
      await lstat(path);
      const target = join(folder, newName);
      if (await exists(target)) throw conflict(`${newName} already exists`);
      await rename(path, target);
    });
  }

  /** Opens a regular file for streaming; the stream closes the file when done. */
  download(agentId: string, requested: string): Promise<Download> {
    return this.guarded(requested, async () => {
      const { file, handle } = await this.openFile(agentId, requested);
      try {
        const { size } = await handle.stat();
        // Exactly `size` bytes, so the response matches its Content-Length even if the file grows.
        const stream = handle.createReadStream(size > 0 ? { start: 0, end: size - 1 } : {});
        return { name: basename(file), size, stream };
      } catch (error) {
        await handle.close();
        throw error;
      }
    });
  }

  /** The agent's workspace folder; unknown agents are refused before anything is created. */
  private async root(agentId: string): Promise<string> {
    this.agents.requireAgent(agentId);
    return this.workspace(agentId);
  }

  /** An existing regular file of the agent's workspace, opened for reading (the caller closes it). */
  private async openFile(
    agentId: string,
    requested: string,
  ): Promise<{ file: string; handle: RegularFile['handle'] }> {
    const root = await this.root(agentId);
    const file = await resolveInWorkspace(root, requested, { mustExist: true });
    const { handle } = await openRegularFile(file, requested);
    return { file, handle };
  }

  private async requireAbsent(path: string, requested: string): Promise<void> {
    try {
      await lstat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code === 'ENOTDIR') throw invalid(`a parent of ${requested} is not a directory`);
      throw error;
    }
    throw conflict(`${requested} already exists`);
  }

  /** Runs a file operation, turning file-system errors into the API's error vocabulary. */
  private async guarded<T>(requested: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw fileError(error, requested);
    }
  }
}

const ERRORS_BY_CODE: Record<string, (requested: string) => AppError> = {
  ENOENT: (requested) => notFound(`no such file or directory: ${requested}`),
  EEXIST: (requested) => conflict(`${requested} already exists`),
  ENOTEMPTY: (requested) => conflict(`${requested} already exists`),
  ENOTDIR: (requested) => invalid(`a parent of ${requested} is not a directory`),
  EISDIR: (requested) => invalid(`${requested} is a directory`),
  ELOOP: (requested) => invalid(`${requested} is a symbolic link that cannot be followed`),
  ENAMETOOLONG: (requested) => invalid(`path is too long: ${requested}`),
  EACCES: (requested) => forbidden(`permission denied: ${requested}`),
  EPERM: (requested) => forbidden(`permission denied: ${requested}`),
};

/** File-system errors a request can cause get their status; anything else stays a 500. */
function fileError(error: unknown, requested: string): unknown {
  if (isAppError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const toAppError = code === undefined ? undefined : ERRORS_BY_CODE[code];
  return toAppError ? toAppError(requested) : error;
}

/**
 * The entry a path names, without following a link in its last part: the folder is resolved
 * inside the workspace (links included), the name is kept as it is.
 */
async function entryOf(
  root: string,
  requested: string,
  verb: string,
): Promise<{ folder: string; path: string }> {
  if (requested.includes('\0')) throw invalid('invalid path: contains a NUL byte');
  const lexical = isAbsolute(requested) ? resolve(requested) : resolve(root, requested);
  if (lexical === root) throw invalid(`the workspace root cannot be ${verb}`);
  const folder = await resolveInWorkspace(root, dirname(lexical));
  return { folder, path: join(folder, basename(lexical)) };
}

async function describe(root: string, path: string, name: string): Promise<WorkspaceEntry | undefined> {
  let info: Stats | undefined = await lstat(path).catch(() => undefined);
  if (!info) return undefined; // removed while listing
  if (info.isSymbolicLink()) {
    // Only a target inside the workspace is described; a link leading out (or nowhere) is listed
    // as an entry of its own, so the listing reveals nothing about files outside.
    const target = await resolveInWorkspace(root, path, { mustExist: true })
      .then((real) => stat(real))
      .catch(() => undefined);
    if (target) info = target;
  }
  if (info.isDirectory()) return { name, isDir: true };
  return { name, isDir: false, size: info.size, modTime: info.mtime.toISOString() };
}

function requireRegularFile(info: Stats, requested: string): void {
  if (info.isDirectory()) throw invalid(`${requested} is a directory`);
  if (!info.isFile()) throw invalid(`${requested} is not a regular file`);
}

async function makeFolder(folder: string, requested: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw invalid(`a parent of ${requested} is not a directory`);
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Plain string order (UTF-16 code units): the same on every machine, whatever its locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
