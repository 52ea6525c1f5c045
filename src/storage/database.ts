// The embedded database: libsql (SQLite, prebuilt) behind kysely, so the same queries can run on
// Postgres later. Migrations are idempotent and run at open.
import { constants } from 'node:fs';
import { chmod, open } from 'node:fs/promises';
import Database from 'libsql';
import { Kysely, SqliteDialect, sql, type Generated } from 'kysely';

export interface SessionsTable {
  key: string;
  agent_id: string;
  channel: string;
  scope: string;
  created_at: number;
  updated_at: number;
}

export interface SessionMessagesTable {
  id: Generated<number>;
  session_key: string;
  /** The ChatMessage as JSON. */
  message: string;
  /** Estimated tokens of the message, for the session's token budget. */
  tokens: number;
  created_at: number;
}

export interface CronTasksTable {
  id: string;
  name: string;
  schedule: string;
  message: string;
  target: string;
  /** 0 or 1. */
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
}

export interface DatabaseSchema {
  sessions: SessionsTable;
  session_messages: SessionMessagesTable;
  cron_tasks: CronTasksTable;
  cron_runs: CronRunsTable;
}

export type Db = Kysely<DatabaseSchema>;

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

export async function openDatabase(path: string): Promise<Db> {
  if (path !== ':memory:') await restrictFile(path);
  const database = new Database(path);
  const db = new Kysely<DatabaseSchema>({
    dialect: new SqliteDialect({
      database: database as unknown as ConstructorParameters<typeof SqliteDialect>[0]['database'],
    }),
  });
  if (path !== ':memory:') await sql`pragma journal_mode = wal`.execute(db);
  await sql`pragma synchronous = normal`.execute(db);
  await sql`pragma busy_timeout = 5000`.execute(db);
  await migrate(db);
  return db;
}

async function migrate(db: Db): Promise<void> {
  await db.schema
    .createTable('sessions')
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('session_messages')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('session_key', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('session_messages_by_key')
    .ifNotExists()
    .on('session_messages')
    .columns(['session_key', 'id'])
    .execute();
  await db.schema.createIndex('sessions_by_agent').ifNotExists().on('sessions').column('agent_id').execute();
  await migrateCron(db);
}

async function migrateCron(db: Db): Promise<void> {
  await db.schema
    .createTable('cron_tasks')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('schedule', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('last_run_at', 'integer')
    .addColumn('last_run_ended_at', 'integer')
    .addColumn('last_run_status', 'text')
    .addColumn('last_run_error', 'text')
    .addColumn('last_run_reply', 'text')
    .addColumn('last_run_ms', 'integer')
    .execute();
  await db.schema
    .createIndex('cron_tasks_by_target')
    .ifNotExists()
    .on('cron_tasks')
    .column('target')
    .execute();
  await db.schema
    .createTable('cron_runs')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('ended_at', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reply', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('cron_runs_by_task')
    .ifNotExists()
    .on('cron_runs')
    .columns(['task_id', 'id'])
    .execute();
}
