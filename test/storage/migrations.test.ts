import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { connectLibsql, openDatabase, type Db } from '../../src/storage/database.ts';
import { migrateToLatest, migrations } from '../../src/storage/migrations/index.ts';
import { SessionStore } from '../../src/storage/session-store.ts';
import {
  DATABASE_KINDS,
  createTestDatabase,
  testDatabaseUrl,
  type TestDatabase,
} from '../fakes/test-database.ts';

const execFileAsync = promisify(execFile);
const ALL = Object.keys(migrations('sqlite'));

async function applied(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** The schema as SQLite states it, without kysely's own bookkeeping tables. */
async function sqliteSchema(db: Db): Promise<string[]> {
  const { rows } = await sql<{ sql: string | null }>`
    select sql from sqlite_master where name not like 'kysely_%' order by type, name`.execute(db);
  return rows.map((row) => row.sql ?? '');
}

/** Three processes migrate `location` from the same instant; each reports what it applied. */
async function raceMigrations(location: string): Promise<string[][]> {
  const script = join(import.meta.dirname, 'fixtures', 'migrate-race.ts');
  // Far enough ahead for all three to have loaded their modules on a busy machine.
  const startAt = String(Date.now() + 3000);
  const run = () =>
    execFileAsync(process.execPath, ['--import', 'tsx', script, location, startAt], { timeout: 60_000 });
  const outputs = await Promise.all([run(), run(), run()]);
  return outputs.map(({ stdout }) => JSON.parse(stdout) as string[]);
}

describe('migrations on a libsql file made before versioned migrations', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-service-migrate-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('migrate the old file cleanly: rows kept, every migration recorded, the schema as a fresh one', async () => {
    // Made by the start-up code of the commit before migrations (its create-if-not-exists steps).
    const path = join(dir, 'old.db');
    await copyFile(join(import.meta.dirname, 'fixtures', 'pre-migrations.db'), path);
    const db = await openDatabase(path);
    assert.deepEqual(await applied(db), ALL);
    const history = await new SessionStore(db).load('agent:main:channel:api:scope:per_peer:old');
    assert.deepEqual(history, [
      { role: 'user', content: 'hello from before' },
      { role: 'assistant', content: 'hi' },
    ]);
    const task = await db.selectFrom('cron_tasks').selectAll().executeTakeFirstOrThrow();
    assert.equal(task.id, 'nightly');
    assert.equal(task.disabled, 1);
    assert.equal(task.last_run_ms, 500);
    const session = await db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    assert.equal(session.title, null);
    // Ids keep counting from where the old file left them.
    await new SessionStore(db).append(
      'agent:main:channel:api:scope:per_peer:old',
      { agentId: 'main', channel: 'api', scope: 'per_peer' },
      [{ role: 'user', content: 'again' }],
    );
    const ids = await db.selectFrom('session_messages').select('id').orderBy('id').execute();
    assert.deepEqual(
      ids.map((row) => row.id),
      [1, 2, 3],
    );
    const fresh = await openDatabase(join(dir, 'fresh.db'));
    assert.deepEqual(await sqliteSchema(db), await sqliteSchema(fresh));
    await fresh.destroy();
    await db.destroy();
    // A second start finds nothing to do and changes nothing.
    const again = await openDatabase(path);
    assert.deepEqual(await applied(again), ALL);
    assert.equal((await new SessionStore(again).load('agent:main:channel:api:scope:per_peer:old')).length, 3);
    await again.destroy();
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('three processes migrating one new file at once: one applies each migration, the others wait', async () => {
    const path = join(dir, 'raced.db');
    const reports = await raceMigrations(path);
    assert.deepEqual(
      reports.sort((a, b) => b.length - a.length),
      [['001-slow'], [], []],
    );
  });
});

for (const kind of DATABASE_KINDS)
  describe(`the migrated schema on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });

    it('records every migration and reads integers back as numbers', async () => {
      database = await createTestDatabase(kind, process.env);
      const db = await database.open();
      assert.deepEqual(await applied(db), ALL);
      await new SessionStore(db, undefined, () => 1_700_000_000_123).append(
        'k',
        { agentId: 'main', channel: 'api', scope: 'per_peer' },
        [{ role: 'user', content: 'hi' }],
      );
      const row = await db.selectFrom('session_messages').selectAll().executeTakeFirstOrThrow();
      assert.equal(row.created_at, 1_700_000_000_123, 'a millisecond timestamp past 2^31 survives');
      assert.equal(typeof row.id, 'number');
      const counted = await db
        .selectFrom('session_messages')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      assert.equal(counted.count, 1);
    });

    it('text keys compare and sort byte by byte, as on SQLite', async () => {
      database = await createTestDatabase(kind, process.env);
      const db = await database.open();
      const session = (key: string) => ({
        key,
        agent_id: 'main',
        channel: 'api',
        scope: 'per_peer',
        created_at: 1,
        updated_at: 1,
      });
      await db.insertInto('sessions').values(['b', 'B', 'a', '_x', 'A'].map(session)).execute();
      const keys = await db.selectFrom('sessions').select('key').orderBy('key').execute();
      assert.deepEqual(
        keys.map((row) => row.key),
        ['A', 'B', '_x', 'a', 'b'],
      );
      assert.equal(
        (await db.selectFrom('sessions').select('key').where('key', '=', 'a').execute()).length,
        1,
      );
    });

    it('a restart reopens the same data without migrating again', async () => {
      database = await createTestDatabase(kind, process.env);
      const first = await database.open();
      await new SessionStore(first).append('kept', { agentId: 'main', channel: 'api', scope: 'per_peer' }, [
        { role: 'user', content: 'still here' },
      ]);
      await first.destroy();
      const second = await database.open();
      assert.deepEqual(await new SessionStore(second).load('kept'), [
        { role: 'user', content: 'still here' },
      ]);
      assert.deepEqual(await applied(second), ALL);
    });
  });

describe('migrations on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('three instances starting at once migrate once, under the advisory lock', async () => {
    database = await createTestDatabase('postgres', process.env);
    const location = database.location;
    const connect = () =>
      new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: location, max: 2 }) }),
      });
    const instances = [connect(), connect(), connect()];
    try {
      const results = await Promise.all(instances.map((db) => migrateToLatest(db, 'postgres')));
      const ran = results.filter((names) => names.length > 0);
      assert.equal(ran.length, 1, `exactly one instance applies the migrations: ${JSON.stringify(results)}`);
      assert.deepEqual(ran[0], ALL);
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(instances[0]!);
      assert.equal(rows.length, ALL.length);
    } finally {
      await Promise.all(instances.map((db) => db.destroy()));
    }
  });

  it('each test database lives in its own schema and drop removes it', async () => {
    database = await createTestDatabase('postgres', process.env);
    const schema = new URL(database.location).searchParams.get('options')?.replace('-c search_path=', '');
    assert.match(schema ?? '', /^test_\d+_[0-9a-f]{12}$/);
    const db = await database.open();
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    assert.equal(rows[0]?.schema, schema);
    await database.drop();
    database = undefined;
    const client = new pg.Client({ connectionString: testDatabaseUrl(process.env) });
    await client.connect();
    try {
      const found = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
      assert.equal(found.rowCount, 0);
    } finally {
      await client.end();
    }
  });

  it('a statement running past the statement timeout is cancelled', async () => {
    database = await createTestDatabase('postgres', process.env);
    const db = await openDatabase(database.location, { statementTimeoutMs: 1500 });
    try {
      // Long enough that migrating at open (which may wait for another test file's lock) fits in it.
      await assert.rejects(sql`select pg_sleep(5)`.execute(db), /statement timeout/);
      assert.equal((await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]?.one, 1);
    } finally {
      await db.destroy();
    }
  });

  it('an unreachable server is reported without the password', async () => {
    // Port 1 on loopback: nothing listens there.
    const url = 'postgres://agent:s3cret-Passw0rd@127.0.0.1:1/agents';
    await assert.rejects(openDatabase(url), (error: Error) => {
      assert.match(
        error.message,
        /^cannot reach the database at postgres:\/\/\*\*\*@127\.0\.0\.1:1\/agents: /,
      );
      assert.match(error.message, /ECONNREFUSED/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    });
  });
});

describe('migrations added after a release', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-service-upgrade-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("a data root with the last release's migrations upgrades: every new one sorts after them", async () => {
    // What the release before this one applied (stop 30). A migration added since must sort after
    // these, or kysely refuses the data root as out of order.
    const released = [
      '001-initial',
      '002-session-title',
      '003-cron-run-fire',
      '101-memory',
      '201-usage',
      '301-responses',
      '501-channel-pairings',
    ];
    const list = migrations('sqlite');
    const older = Object.fromEntries(released.map((name) => [name, list[name] as (typeof list)[string]]));
    const db = await connectLibsql(join(dir, 'released.db'));
    try {
      assert.deepEqual(await migrateToLatest(db as unknown as Kysely<unknown>, 'sqlite', older), released);
      const added = await migrateToLatest(db as unknown as Kysely<unknown>, 'sqlite', list);
      assert.deepEqual(
        added,
        ALL.filter((name) => !released.includes(name)),
      );
      assert.ok(added.length > 0 && added.every((name) => name > (released.at(-1) as string)));
      assert.deepEqual(await applied(db), ALL);
    } finally {
      await db.destroy();
    }
  });
});
