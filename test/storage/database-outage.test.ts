// PostgreSQL cut off under a running service (issue 26, "Dependencies failing"): the connections lent
// out at that moment (a transaction between two statements, a statement running) fail their
// statements; the process does not end, and the database is used again once it is back. The chaos
// run saw two of three instances end at the PostgreSQL outage with an unheard pg client 'error'
// ("Connection terminated unexpectedly"), so every conversation stopped being answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../src/storage/database.ts';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

describe('PostgreSQL cut off under lent-out connections', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Db | undefined;

  before(async () => {
    database = await createTestDatabase('postgres', process.env);
    proxy = await startTcpProxy(Number(new URL(database.databaseUrl).port || 5432));
  });
  after(async () => {
    await db?.destroy();
    await proxy?.close();
    await database?.drop();
  });

  it('fails the statements, keeps the process, and works again after the outage', async () => {
    const proxied = new URL(database.databaseUrl);
    proxied.port = String(proxy.port);
    db = await openDatabase(proxied.toString());
    const opened = db;
    const uncaught: unknown[] = [];
    const record = (error: unknown): void => {
      uncaught.push(error);
    };
    process.on('uncaughtException', record);
    try {
      let inTransaction!: () => void;
      const holding = new Promise<void>((resolve) => (inTransaction = resolve));
      let cutDone!: () => void;
      const cut = new Promise<void>((resolve) => (cutDone = resolve));
      // A transaction holds its connection between statements: idle on the wire, but lent out.
      const failed = (work: Promise<unknown>): Promise<boolean> =>
        work.then(
          () => false,
          () => true,
        );
      const transaction = failed(
        opened.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          inTransaction();
          await cut;
          await sql`select 1`.execute(trx);
        }),
      );
      // A statement running when the connection drops.
      const running = failed(sql`select pg_sleep(30)`.execute(opened));
      await holding;
      const started = Date.now();
      while (Date.now() - started < 5_000) {
        const active = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where query like 'select pg_sleep(30)%' and state = 'active'`.execute(opened);
        if ((active.rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      proxy.cutOff();
      // Each rejection below comes after its socket's end was handled (and, unheard, thrown).
      cutDone();
      assert.equal(await transaction, true, 'the transaction failed');
      assert.equal(await running, true, 'the running statement failed');
      await assert.rejects(sql`select 1`.execute(opened));
      proxy.restore();
      const back = await sql<{ one: number }>`select 1 as one`.execute(opened);
      assert.equal(back.rows[0]?.one, 1);
      assert.deepEqual(
        uncaught.map((error) => String(error)),
        [],
        'no connection error reached the process unheard',
      );
    } finally {
      process.off('uncaughtException', record);
    }
  });
});
