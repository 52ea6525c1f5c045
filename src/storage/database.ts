// The database behind kysely: the embedded libsql file (the default), or PostgreSQL when
// data.database_url is set, so instances can share state. Every query is the same kysely code on
// both; the schema comes from versioned migrations (./migrations) run at open under a lock.
import { constants } from 'node:fs';
import { chmod, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'libsql';
import type pg from 'pg';
import {
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type DialectAdapter,
  type Driver,
  type Generated,
  type MigrationLockOptions,
} from 'kysely';
import { redactUrlCredentials } from '../core/url-credentials.ts';
import { scrubSecrets } from '../core/scrub-secrets.ts';
import { migrateToLatest, type Dialect } from './migrations/index.ts';
import type { Logger } from '../core/logger.ts';

export interface SessionsTable {
  key: string;
  agent_id: string;
  channel: string;
  scope: string;
  /** Set by the user; null until then. */
  title: string | null;
  created_at: number;
  updated_at: number;
  /** The active branch's last message; null while the session never branched (every message is on it). */
  leaf_id: number | null;
  /** 1 when the user pinned (or archived) the conversation. */
  pinned: Generated<number>;
  archived: Generated<number>;
}

export interface SessionMessagesTable {
  id: Generated<number>;
  session_key: string;
  /** The ChatMessage as JSON. */
  message: string;
  /** Estimated tokens of the message, for the session's token budget. */
  tokens: number;
  created_at: number;
  /** null for a finished turn's message; 'stopped' or 'failed' for the answer of a turn that did not finish. */
  status: string | null;
  /** What a failed turn failed with. */
  error: string | null;
  /** The turn's token usage (MessageUsage as JSON), on the answer of a finished turn; else null. */
  usage: string | null;
  /** The message this one follows (0: none) once its session branched; null before. */
  parent_id: number | null;
}

/** A summary entry: it folds the messages `first_id`..`last_id` (and every summary before it). */
export interface SessionSummariesTable {
  id: Generated<number>;
  session_key: string;
  first_id: number;
  last_id: number;
  content: string;
  tokens: number;
  created_at: number;
}

/** The memory files indexed per agent, as they were when indexed. */
export interface MemoryFilesTable {
  agent_id: string;
  path: string;
  mtime_ms: number;
  size: number;
}

/** What the keyword index holds: chunks of memory files and session messages. */
export interface SearchDocumentsTable {
  id: Generated<number>;
  /** 'memory' or 'session'. */
  corpus: string;
  agent_id: string;
  /** The memory file's path, or the session's key. */
  source: string;
  start_line: number;
  end_line: number;
  /** The session message's id. */
  ref_id: number | null;
  /** The fact's time in ms: the dated note's day, the message's time. */
  at: number;
  text: string;
  /** sha256 of `text` (memory chunks), the key of its cached vector; null for older rows and messages. */
  content_hash: string | null;
}

/** Vectors of memory chunks by model and text hash (libsql only: migration 801). */
export interface MemoryVectorsTable {
  /** The embedding model's key: provider, model and asked dimensions. */
  model: string;
  hash: string;
  dimensions: number;
  /** A libsql F32 vector blob. */
  vector: Uint8Array;
  created_at: number;
}

export interface CronTasksTable {
  id: string;
  name: string;
  schedule: string;
  message: string;
  target: string;
  /** 0 or 1 (an integer on both databases, not a boolean). */
  disabled: number;
  created_at: number;
  updated_at: number;
  last_run_at: number | null;
  last_run_ended_at: number | null;
  last_run_status: string | null;
  last_run_error: string | null;
  last_run_reply: string | null;
  last_run_ms: number | null;
}

export interface CronRunsTable {
  id: Generated<number>;
  task_id: string;
  started_at: number;
  ended_at: number;
  status: string;
  reply: string | null;
  error: string | null;
  /** The fire's scheduled time (ms); null for a run started by hand. Unique per task. */
  scheduled_at: number | null;
}

export interface DatabaseSchema {
  sessions: SessionsTable;
  session_messages: SessionMessagesTable;
  cron_tasks: CronTasksTable;
  cron_runs: CronRunsTable;
  session_summaries: SessionSummariesTable;
  memory_files: MemoryFilesTable;
  search_documents: SearchDocumentsTable;
  memory_vectors: MemoryVectorsTable;
}

export type Db = Kysely<DatabaseSchema>;

export interface DatabaseOptions {
  /** Told which migrations ran, and about connections the Postgres pool lost while idle. */
  logger?: Logger;
  /** Postgres pool size (default 10). */
  poolSize?: number;
  /** Postgres statement timeout in ms (default 30 s); `?statement_timeout=` in the URL wins. */
  statementTimeoutMs?: number;
  /** Postgres: run the migrations (default true); a side pool of a database opened already skips them. */
  migrate?: boolean;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** The dialect a location opens: a postgres:// URL, or else a libsql file path (`:memory:` too). */
export function dialectOf(location: string): Dialect {
  return POSTGRES_URL.test(location) ? 'postgres' : 'sqlite';
}

/**
 * Opens and migrates the database at `location`: a postgres:// URL (data.database_url), or the path
 * of the libsql file (`:memory:` for a private in-memory one).
 */
export async function openDatabase(location: string, options: DatabaseOptions = {}): Promise<Db> {
  return dialectOf(location) === 'postgres' ? openPostgres(location, options) : openLibsql(location, options);
}

/** Conversations are private: the file and its WAL companions are the owner's only (0600). */
async function restrictFile(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
  for (const companion of [`${path}-wal`, `${path}-shm`])
    await chmod(companion, 0o600).catch(() => undefined);
}

/**
 * Kysely runs SQLite migrations without a transaction or lock. This adapter makes the run one write
 * transaction that starts by writing the lock row: a second process on the same file waits (busy
 * timeout) and then finds the migrations applied.
 */
class MigratingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`update ${sql.table(options.lockTable)} set is_locked = 1 where id = ${options.lockRowId}`.execute(
      db,
    );
  }

  override async releaseMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`update ${sql.table(options.lockTable)} set is_locked = 0 where id = ${options.lockRowId}`.execute(
      db,
    );
  }
}

class LibsqlDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new MigratingSqliteAdapter();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      try {
        await rollback(connection);
      } catch (error) {
        // SQLite rolls a transaction back by itself after some failures (a full disk, SQLITE_FULL):
        // the failure that did it is the one to report, not that nothing was left to roll back.
        if (!/no transaction is active/.test(error instanceof Error ? error.message : '')) throw error;
      }
    };
    return driver;
  }
}

/** The libsql file (0600, WAL) behind kysely, not yet migrated. */
export async function connectLibsql(path: string): Promise<Db> {
  if (path !== ':memory:') await restrictFile(path);
  const database = new Database(path);
  const db = new Kysely<DatabaseSchema>({
    dialect: new LibsqlDialect({
      database: reusingStatements(database) as unknown as ConstructorParameters<
        typeof SqliteDialect
      >[0]['database'],
    }),
  });
  try {
    // First, so that switching to WAL waits for another process's lock instead of failing at once.
    await sql`pragma busy_timeout = 5000`.execute(db);
    if (path !== ':memory:') await sql`pragma journal_mode = wal`.execute(db);
    await sql`pragma synchronous = normal`.execute(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Distinct statements kept prepared; kysely writes the same few dozen texts over and over. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The database as kysely's SQLite driver uses it (`prepare`, `close`), with prepared statements
 * kept by their SQL text: kysely prepares every query it runs, and preparing (parsing and planning
 * the SQL) cost as much as running a small query. A statement is reset by each run, whatever the
 * last one did (failed on a constraint, say), and SQLite prepares it again by itself when the
 * schema changes. The least recently used statement goes first.
 */
function reusingStatements(database: Database.Database): Pick<Database.Database, 'prepare' | 'close'> {
  const statements = new Map<string, Database.Statement>();
  return {
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) statements.delete(text);
      else {
        statement = database.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE)
          statements.delete(statements.keys().next().value as string);
      }
      statements.set(text, statement);
      return statement;
    },
    close() {
      statements.clear();
      return database.close();
    },
  } as Pick<Database.Database, 'prepare' | 'close'>;
}

async function openLibsql(path: string, options: DatabaseOptions): Promise<Db> {
  const db = await connectLibsql(path);
  try {
    const applied = await migrateToLatest(db as Kysely<unknown>, 'sqlite', undefined, {
      where: path,
      // An older data root is upgraded in place, after a copy of its database is kept.
      beforeUpgrade: async (state) => {
        if (path === ':memory:') return;
        const copy = await preUpgradeCopy(db, path);
        options.logger?.info(
          { database: path, copy, pending: state.pending },
          'database copied before upgrade',
        );
      },
    });
    if (applied.length > 0)
      options.logger?.info({ database: path, migrations: applied }, 'database migrated');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** `<data root>/backups/pre-upgrade-<time>.db`: the database as it was, written by VACUUM INTO. */
async function preUpgradeCopy(db: Db, path: string): Promise<string> {
  const folder = join(dirname(path), 'backups');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const copy = join(folder, `pre-upgrade-${new Date().toISOString().replace(/[:.]/g, '-')}.db`);
  await sql`vacuum into ${copy}`.execute(db);
  await chmod(copy, 0o600);
  return copy;
}

const INT8_OID = 20;

/** int8 (bigint timestamps, identity ids, count(*)) as JS numbers, as libsql returns them. */
function pgTypes(driver: typeof pg) {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID && format !== 'binary'
        ? (value: string) => Number(value)
        : driver.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
}

/** The URL's password, which a driver's message may quote. */
function passwordOf(url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // Not a URL: nothing to take out.
  }
  return password;
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Db> {
  const shown = redactUrlCredentials(url);
  // Loaded only here: the embedded default never pays for the Postgres driver at start.
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    // A transaction left open (a bug, a stalled process) must not hold row locks for long.
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'agent-service',
    types: pgTypes(driver),
  });
  const lost = (error: Error): void => {
    options.logger?.warn(
      { database: shown, error: scrubSecrets(error.message, [passwordOf(url)]) },
      'database connection lost',
    );
  };
  // An idle client that loses its server emits here; unheard, the event would end the process.
  pool.on('error', lost);
  // A client lent out (a transaction between statements, a query running) hears nothing from the
  // pool: its socket dying (PostgreSQL restarted, the network cut) emitted an unheard 'error' that
  // ended the process. Its statement fails instead, and the pool drops the broken client on release.
  pool.on('connect', (client) => {
    client.on('error', (error: Error) => {
      if (client.listenerCount('error') === 1) lost(error);
    });
  });
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw new Error(
      `cannot reach the database at ${shown}: ${scrubSecrets(messageOf(error), [passwordOf(url)])}`,
    );
  }
  if (options.migrate === false) return db;
  try {
    const applied = await migrateToLatest(db as Kysely<unknown>, 'postgres', undefined, { where: shown });
    if (applied.length > 0)
      options.logger?.info({ database: shown, migrations: applied }, 'database migrated');
  } catch (error) {
    await db.destroy();
    throw new Error(`database ${shown}: ${scrubSecrets(messageOf(error), [passwordOf(url)])}`);
  }
  return db;
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0)
    return error.errors.map((inner: unknown) => messageOf(inner)).join('; ');
  return error instanceof Error ? error.message || error.name : String(error);
}
