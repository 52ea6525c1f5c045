// One server per data root in the embedded mode: two would both run cron tasks and hold the same
// channel connections. The first start creates `server.lock` in the data root with O_EXCL (so two
// starts cannot both succeed) holding its pid, start time and address; a later start reads it and
// stops with an error naming that process. A lock whose pid is no longer running is stale and is
// taken over. Clustered mode (cluster.redis_url) coordinates through Redis instead and takes no lock.
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';

export const LOCK_FILE = 'server.lock';

/** A lock file younger than this with no readable content may be a start that is still writing it. */
const UNREADABLE_GRACE_MS = 10_000;

interface LockContent {
  pid: number;
  startedAt: string;
  address: string;
}

export interface DataRootLock {
  readonly path: string;
  /** Records the address the server listens on (known once it listens). */
  update(address: string): Promise<void>;
  /** Removes the lock if it is still ours. */
  release(): Promise<void>;
}

function parse(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return {
      pid: value.pid,
      startedAt: typeof value.startedAt === 'string' ? value.startedAt : 'an unknown time',
      address: typeof value.address === 'string' ? value.address : 'an unknown address',
    };
  } catch {
    return undefined;
  }
}

/** True while a process with that pid exists (EPERM: it exists but belongs to another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function create(path: string, content: LockContent): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(content)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/** Why the existing lock stops this start, or undefined when it is stale. */
async function holder(path: string, now: number): Promise<string | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined; // gone meanwhile
  const content = parse(text);
  if (content) {
    if (!isRunning(content.pid)) return undefined;
    return `pid ${content.pid}, listening on ${content.address}, started ${content.startedAt}`;
  }
  const age = now - ((await stat(path).catch(() => undefined))?.mtimeMs ?? 0);
  return age < UNREADABLE_GRACE_MS ? 'a server that is starting' : undefined;
}

/**
 * Takes the data root's lock for this process, or throws an Error naming the server that holds it.
 * `address` is the configured host:port until `update` records the real one.
 */
export async function lockDataRoot(root: string, address: string, now = Date.now()): Promise<DataRootLock> {
  const path = join(root, LOCK_FILE);
  const content: LockContent = { pid: process.pid, startedAt: new Date(now).toISOString(), address };
  // Two attempts: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (await create(path, content)) return ownLock(path, content);
    const reason = await holder(path, now);
    if (reason !== undefined)
      throw new Error(
        `the data root ${root} is in use by another server (${reason}); stop that server first, or ` +
          `start this one with another data root (--data DIR). Lock file: ${path}`,
      );
    await unlink(path).catch(() => undefined);
  }
  throw new Error(`could not take the lock of the data root ${root} (${path}); another server is starting`);
}

function ownLock(path: string, content: LockContent): DataRootLock {
  let current = content;
  const isOurs = async (): Promise<boolean> => {
    const found = parse((await readFile(path, 'utf8').catch(() => '')) || '');
    return found?.pid === current.pid && found.startedAt === current.startedAt;
  };
  return {
    path,
    async update(address) {
      if (!(await isOurs())) return;
      current = { ...current, address };
      await writeFileAtomic(path, `${JSON.stringify(current)}\n`, { mode: 0o600 });
    },
    async release() {
      if (await isOurs()) await unlink(path).catch(() => undefined);
    },
  };
}

/**
 * The `host:port` of the server that holds this data root's lock, when its process is alive: how
 * the command-line client finds a server started with `--port` that its config file does not name.
 */
export async function runningServerAddress(root: string): Promise<string | undefined> {
  const content = parse((await readFile(join(root, LOCK_FILE), 'utf8').catch(() => '')) || '');
  if (!content || !isRunning(content.pid)) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]+):(\d{1,5})$/.exec(content.address);
  if (!match) return undefined;
  const host = match[1] === '0.0.0.0' ? '127.0.0.1' : match[1] === '[::]' ? '[::1]' : match[1];
  return `${host}:${match[2]}`;
}

/**
 * The lock file's path when it is stale (its process is gone, or it is unreadable and old), so
 * `agent-service doctor --fix` can remove it; undefined when there is none or its server runs.
 */
export async function staleLock(root: string, now = Date.now()): Promise<string | undefined> {
  const path = join(root, LOCK_FILE);
  if (!(await stat(path).catch(() => undefined))) return undefined;
  return (await holder(path, now)) === undefined ? path : undefined;
}
