// A fresh database per test on either engine. libsql: a file in its own temp folder. PostgreSQL: a
// schema of its own in TEST_DATABASE_URL's database (its URL selects it through search_path), so
// test files running in parallel never see each other's rows; drop() removes either.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Db } from '../../src/storage/database.ts';
import { redactUrlCredentials } from '../../src/core/url-credentials.ts';

export type DatabaseKind = 'libsql' | 'postgres';

/** Every store test runs on both; the Postgres runs fail (never skip) when it is not reachable. */
export const DATABASE_KINDS: readonly DatabaseKind[] = ['libsql', 'postgres'];

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  kind: DatabaseKind;
  /** The location openDatabase takes: the libsql file path, or a postgres:// URL of this schema. */
  location: string;
  /** data.database_url for a server's config: '' (the file under root_dir) for libsql. */
  databaseUrl: string;
  /** Opens (and migrates) the database; call again to "restart" onto the same data. */
  open(): Promise<Db>;
  /** Closes what open() opened and removes the file or schema. */
  drop(): Promise<void>;
}

/** The Postgres server the tests use: TEST_DATABASE_URL, else the local one. */
export function testDatabaseUrl(env: Record<string, string | undefined>): string {
  return env['TEST_DATABASE_URL'] || DEFAULT_TEST_DATABASE_URL;
}

function unreachable(url: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message || error.name : String(error);
  return new Error(
    `PostgreSQL is not reachable at ${redactUrlCredentials(url)} (TEST_DATABASE_URL): ${reason}. ` +
      'Start the local server with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, ' +
      'or set TEST_DATABASE_URL to a server the tests may create schemas in.',
  );
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw unreachable(url, error);
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The URL with `options=-c search_path=<schema>`, so every pooled connection lands in the schema. */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

export async function createTestDatabase(
  kind: DatabaseKind,
  env: Record<string, string | undefined> = {},
): Promise<TestDatabase> {
  const opened: Db[] = [];
  const closeAll = async () => {
    for (const db of opened.splice(0)) await db.destroy();
  };
  if (kind === 'libsql') {
    const dir = await mkdtemp(join(tmpdir(), 'agent-service-db-'));
    const location = join(dir, 'agent-service.db');
    return {
      kind,
      location,
      databaseUrl: '',
      async open() {
        const db = await openDatabase(location);
        opened.push(db);
        return db;
      },
      async drop() {
        await closeAll();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const base = testDatabaseUrl(env);
  const schema = `test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await admin(base, (client) => client.query(`create schema "${schema}"`));
  const location = withSchema(base, schema);
  return {
    kind,
    location,
    databaseUrl: location,
    async open() {
      const db = await openDatabase(location, { poolSize: 4 });
      opened.push(db);
      return db;
    },
    async drop() {
      await closeAll();
      await admin(base, (client) => client.query(`drop schema if exists "${schema}" cascade`));
    },
  };
}
