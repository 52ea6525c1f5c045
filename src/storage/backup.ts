// One archive of a single-mode installation: the config file and the data root (agents, chains,
// skills, workspaces, secrets, the database with sessions, cron tasks and run history). A zip file
// (fflate) holding:
//   agent-service-backup.json   what it is: format, version, time, the schema version
//   config.yaml                 the config file as it was (it holds the channel accounts and keys)
//   data/...                    every file of the data root, the database as one consistent copy
// The database is copied with VACUUM INTO (libsql's online copy: one read transaction, so turns may
// go on writing); the other files are read while the process's atomic writes are paused.
import { lstat, mkdir, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { sql, type Kysely } from 'kysely';
import { parseDocument } from 'yaml';
import { withWritesPaused, writeFileAtomic } from '../core/atomic-write.ts';
import { randomToken } from '../core/ids.ts';
import { LOCK_FILE } from './data-root-lock.ts';

export const BACKUP_FORMAT = 'agent-service-backup';
export const DATABASE_FILE = 'agent-service.db';
const MANIFEST = 'agent-service-backup.json';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: 1;
  createdAt: string;
  version: string;
  /** The newest migration of the database: its schema version. */
  schema: string | null;
  files: number;
}

export interface BackupSource {
  /** The config file's path. */
  configPath: string;
  dataRoot: string;
  /** data.logs_dir: left out when it is inside the data root (logs are not state). */
  logsDir?: string;
  /** The open database, when a server holds it; else the file is opened here. */
  db?: Kysely<unknown>;
  version: string;
}

/** Why a clustered installation is not backed up here, or undefined for single mode. */
export function clusteredReason(config: { data: { database_url: string }; cluster: { redis_url: string } }):
  | string
  | undefined {
  if (!config.data.database_url && !config.cluster.redis_url) return undefined;
  return (
    'backup and restore work in single mode only; in clustered mode the state is in PostgreSQL: back it up ' +
    'with pg_dump (e.g. pg_dump -Fc "$DATABASE_URL" > agent-service.dump, restore with pg_restore) and copy ' +
    'the config file and the shared data root (agents, skills) with your file backup'
  );
}

/** Files of the data root kept in the archive, as paths relative to it. */
async function stateFiles(root: string, skip: Set<string>): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (skip.has(path)) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !/^\..+\.[0-9a-f]{12}\.tmp$/.test(entry.name))
        found.push(relative(root, path).split(sep).join('/'));
    }
  };
  await walk(root);
  return found.sort();
}

async function schemaOf(db: Kysely<unknown>): Promise<string | null> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`
    .execute(db)
    .then((result) => result.rows)
    .catch(() => []);
  return rows[0]?.name ?? null;
}

/** The archive's bytes. */
export async function createBackup(source: BackupSource): Promise<Uint8Array> {
  const root = resolve(source.dataRoot);
  const dbPath = join(root, DATABASE_FILE);
  const skip = new Set([
    join(root, LOCK_FILE),
    dbPath,
    `${dbPath}-wal`,
    `${dbPath}-shm`,
    `${dbPath}-journal`,
    join(root, 'backups'),
    ...(source.logsDir ? [resolve(source.logsDir)] : []),
  ]);
  const copy = join(tmpdir(), `agent-service-backup-${randomToken(8)}.db`);
  let db = source.db;
  let opened: Kysely<unknown> | undefined;
  try {
    if (!db && (await lstat(dbPath).catch(() => undefined))) {
      const { connectLibsql } = await import('./database.ts');
      opened = (await connectLibsql(dbPath)) as unknown as Kysely<unknown>;
      db = opened;
    }
    const entries: Zippable = {};
    const taken = await withWritesPaused(async () => {
      if (db) await sql`vacuum into ${copy}`.execute(db);
      const files = await stateFiles(root, skip);
      for (const file of files) entries[`data/${file}`] = await readFile(join(root, file));
      entries['config.yaml'] = await readFile(source.configPath);
      return files.length;
    });
    if (db) entries[`data/${DATABASE_FILE}`] = await readFile(copy);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: 1,
      createdAt: new Date().toISOString(),
      version: source.version,
      schema: db ? await schemaOf(db) : null,
      files: taken + (db ? 1 : 0),
    };
    entries[MANIFEST] = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    return zipSync(entries, { level: 6 });
  } finally {
    await opened?.destroy();
    await unlink(copy).catch(() => undefined);
  }
}

export function readManifest(entries: Record<string, Uint8Array>): BackupManifest {
  const raw = entries[MANIFEST];
  if (!raw) throw new Error(`not an Agent Service backup (no ${MANIFEST} in the archive)`);
  const manifest = JSON.parse(Buffer.from(raw).toString('utf8')) as BackupManifest;
  if (manifest.format !== BACKUP_FORMAT || manifest.formatVersion !== 1)
    throw new Error('not an Agent Service backup of a format this version reads');
  return manifest;
}

export interface RestoreTarget {
  dataRoot: string;
  /** Where the archived config file goes; undefined: it is not written. */
  configPath?: string;
}

/** True when the folder is absent or holds nothing but empty folders. */
async function isEmpty(folder: string): Promise<boolean> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return true;
  for (const entry of entries) {
    if (!entry.isDirectory() || !(await isEmpty(join(folder, entry.name)))) return false;
  }
  return true;
}

/** Unpacks an archive onto an empty data root; answers its manifest. */
export async function restoreBackup(archive: Uint8Array, target: RestoreTarget): Promise<BackupManifest> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(archive);
  } catch {
    throw new Error('the file is not a zip archive (an Agent Service backup is one)');
  }
  const manifest = readManifest(entries);
  const root = resolve(target.dataRoot);
  if (!(await isEmpty(root)))
    throw new Error(`the data root ${root} is not empty; restore onto an empty or new folder (--data DIR)`);
  const config = entries['config.yaml'];
  if (target.configPath && !config) throw new Error('the archive has no config.yaml');
  if (target.configPath && (await lstat(target.configPath).catch(() => undefined)))
    throw new Error(
      `${target.configPath} exists; restore the config to another path (--config FILE) or leave it out (--skip-config)`,
    );
  const written: string[] = [];
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    for (const [name, bytes] of Object.entries(entries)) {
      if (!name.startsWith('data/') || name.endsWith('/')) continue;
      const path = resolve(root, name.slice('data/'.length));
      if (!path.startsWith(root + sep)) throw new Error(`the archive names a path outside the data root: ${name}`);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(path, bytes, { mode: 0o600 });
      written.push(path);
    }
    if (target.configPath && config) {
      // The restored config points at the data root it was restored onto.
      const document = parseDocument(Buffer.from(config).toString('utf8'));
      document.setIn(['data', 'root_dir'], root);
      document.setIn(['data', 'logs_dir'], join(root, 'logs'));
      await writeFileAtomic(target.configPath, document.toString(), { mode: 0o600 });
    }
  } catch (error) {
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  return manifest;
}
