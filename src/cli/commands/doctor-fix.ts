// The local half of `agent-service doctor`: what can be checked, and with --fix repaired, on this
// machine's files: config keys that moved, file modes of the data root and its secrets, a stale
// data-root lock, a missing default agent.
import { chmod, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { agentTemplate } from '../../chains/agent-template.ts';
import { DEFAULT_AGENT_ID } from '../../chains/chain-catalog.ts';
import type { Config } from '../../config/schema.ts';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { ChainFileStore } from '../../storage/chain-files.ts';
import { staleLock } from '../../storage/data-root-lock.ts';

export type Check = { check: string; status: 'ok' | 'warn' | 'fail'; detail: string; fixed?: boolean };

/** Config keys an earlier spelling used, and where they live now. */
export const MOVED_KEYS: Array<[from: string[], to: string[]]> = [
  [['server', 'logLevel'], ['server', 'log_level']],
  [['server', 'logFile'], ['server', 'log_file']],
  [['server', 'bodyLimit'], ['server', 'body_limit']],
  [['data', 'rootDir'], ['data', 'root_dir']],
  [['data', 'logsDir'], ['data', 'logs_dir']],
  [['data', 'databaseUrl'], ['data', 'database_url']],
  [['security', 'require_auth'], ['security', 'requireAuth']],
  [['security', 'jwt_secret'], ['security', 'jwtSecret']],
  [['cluster', 'redisUrl'], ['cluster', 'redis_url']],
];

/** Renames moved keys in the config file (comments kept); run before the file is loaded. */
export async function movedKeys(path: string, fix: boolean, read: (path: string) => Promise<string>): Promise<Check> {
  const document = parseDocument(await read(path));
  const found = MOVED_KEYS.filter(([from]) => document.hasIn(from));
  if (found.length === 0) return { check: 'config keys', status: 'ok', detail: 'none moved' };
  const names = found.map(([from, to]) => `${from.join('.')} → ${to.join('.')}`).join(', ');
  if (!fix) return { check: 'config keys', status: 'fail', detail: `moved: ${names}; run: agent-service doctor --fix` };
  for (const [from, to] of found) {
    const parent = document.getIn(from.slice(0, -1), true);
    const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && item.key.value === from.at(-1)) : undefined;
    // Same parent: the key is renamed where it stands, so its value and comments stay.
    if (pair && isScalar(pair.key) && !document.hasIn(to) && from.slice(0, -1).join('.') === to.slice(0, -1).join('.'))
      pair.key.value = to.at(-1);
    else {
      const value: unknown = document.getIn(from);
      document.deleteIn(from);
      if (!document.hasIn(to)) document.setIn(to, value);
    }
  }
  const mode = (await stat(path)).mode & 0o777;
  await writeFileAtomic(path, document.toString(), { mode });
  return { check: 'config keys', status: 'ok', detail: `renamed ${names}`, fixed: true };
}

/** Paths that must be the owner's only, with the mode each should have. */
async function privatePaths(root: string): Promise<Array<[string, number]>> {
  const paths: Array<[string, number]> = [[root, 0o700]];
  const secrets = join(root, 'secrets');
  if (await stat(secrets).catch(() => undefined)) {
    paths.push([secrets, 0o700]);
    for (const name of await readdir(secrets)) paths.push([join(secrets, name), 0o600]);
  }
  for (const name of ['agent-service.db', 'agent-service.db-wal', 'agent-service.db-shm'])
    paths.push([join(root, name), 0o600]);
  return paths;
}

async function fileModes(root: string, fix: boolean): Promise<Check> {
  const wrong: Array<[string, number, number]> = [];
  for (const [path, want] of await privatePaths(root)) {
    const info = await stat(path).catch(() => undefined);
    if (info && (info.mode & 0o077) !== 0) wrong.push([path, info.mode & 0o777, want]);
  }
  if (wrong.length === 0) return { check: 'file modes', status: 'ok', detail: 'data root and secrets are private' };
  const list = wrong.map(([path, mode, want]) => `${path} ${mode.toString(8)} (want ${want.toString(8)})`).join(', ');
  if (!fix) return { check: 'file modes', status: 'fail', detail: `readable by others: ${list}` };
  for (const [path, , want] of wrong) await chmod(path, want);
  return { check: 'file modes', status: 'ok', detail: `set ${list}`, fixed: true };
}

async function lock(root: string, fix: boolean): Promise<Check> {
  const path = await staleLock(root);
  if (!path) return { check: 'data root lock', status: 'ok', detail: 'none stale' };
  if (!fix)
    return { check: 'data root lock', status: 'warn', detail: `${path} is left by a server that no longer runs` };
  await unlink(path).catch(() => undefined);
  return { check: 'data root lock', status: 'ok', detail: `removed the stale ${path}`, fixed: true };
}

async function defaultAgent(root: string, fix: boolean): Promise<Check> {
  const files = new ChainFileStore(root);
  const exists = (await files.scan()).some((l) => l.kind === 'agent' && l.id === DEFAULT_AGENT_ID);
  if (exists) return { check: 'default agent', status: 'ok', detail: `"${DEFAULT_AGENT_ID}" exists` };
  if (!fix)
    return { check: 'default agent', status: 'warn', detail: `"${DEFAULT_AGENT_ID}" is missing (a start creates it)` };
  await files.write(files.locate(DEFAULT_AGENT_ID, 'agent', DEFAULT_AGENT_ID), agentTemplate());
  return {
    check: 'default agent',
    status: 'ok',
    detail: `created "${DEFAULT_AGENT_ID}" (a running server loads it when it restarts)`,
    fixed: true,
  };
}

/** Checks of the data root named by the config file; nothing when it does not exist yet. */
export async function dataRootChecks(config: Config, fix: boolean): Promise<Check[]> {
  const root = config.data.root_dir;
  if (!(await stat(root).catch(() => undefined)))
    return [{ check: 'data root', status: 'ok', detail: `${root} does not exist yet (the first start creates it)` }];
  return [await fileModes(root, fix), await lock(root, fix), await defaultAgent(root, fix)];
}
