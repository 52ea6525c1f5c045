// Clustered, an instance's claims are renewed over connections of their own: with every connection of
// its shared pool held by slow work (turns' queries on an overloaded instance), its leases still
// renew, so no other instance takes over work that is still running. Behind the turns' queries they
// came too late: at 200 cron fires a second, hundreds of turns ran twice.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../src/storage/database.ts';
import { DurableWork } from '../../src/storage/durable-work.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const HELD_S = 20;

describe('durable work: leases renewed over a pool of their own', () => {
  let database: TestDatabase | undefined;
  const open: Db[] = [];
  const works: DurableWork[] = [];
  after(async () => {
    for (const work of works) await work.stop();
    for (const db of open) await db.destroy().catch(() => undefined);
    await database?.drop();
  });

  it('renews while every connection of the shared pool is busy', async () => {
    database = await createTestDatabase('postgres', process.env);
    const shared = await openDatabase(database.location, { poolSize: 2 });
    const observer = await database.open();
    open.push(shared);
    const work = new DurableWork(shared, 'a', { leaseMs: 1_000, tickMs: 100, leaseUrl: database.location });
    works.push(work);
    await work.start();
    assert.equal(await work.record('cron', 'fire-1', { taskId: 't' }), true);
    const leaseOf = async () =>
      Number(
        (
          await sql<{
            lease_until: string;
          }>`select lease_until from durable_work where id = 'fire-1'`.execute(observer)
        ).rows[0]?.lease_until,
      );
    const first = await leaseOf();
    // Both connections of the shared pool are taken by slow statements, named so that only they are
    // found (other tests share the server).
    const tag = `hold_${randomBytes(6).toString('hex')}`;
    const ours = sql.raw(`query like '%${tag}%' and pid <> pg_backend_pid()`);
    let released = false;
    // Settled, never rejected: the statements end cancelled (below), maybe before this is awaited.
    const held = Promise.allSettled(
      [1, 2].map(() => sql.raw(`select pg_sleep(${HELD_S}) as ${tag}`).execute(shared)),
    ).then(() => (released = true));
    await waitUntil(async () => {
      const busy = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where ${ours} and state = 'active'`.execute(observer);
      return Number(busy.rows[0]?.n) >= 2;
    }, 'the shared pool is busy');
    const busySince = Date.now();
    await waitUntil(async () => (await leaseOf()) > Math.max(first, busySince) + 500, 'a renewal');
    assert.equal(released, false, 'renewed while the shared pool was still held');
    await sql`select pg_cancel_backend(pid) from pg_stat_activity where ${ours}`.execute(observer);
    await held;
  });

  it('without connections of its own (the database refuses them) it renews over the shared pool', async () => {
    database ??= await createTestDatabase('postgres', process.env);
    const shared = await openDatabase(database.location, { poolSize: 2 });
    open.push(shared);
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_: object, message: string) => warnings.push(message) };
    // A closed port on this machine: the side pool cannot be opened.
    const closed = new URL(database.location);
    closed.port = '1';
    const work = new DurableWork(shared, 'b', {
      leaseMs: 1_000,
      tickMs: 100,
      leaseUrl: closed.toString(),
      logger,
    });
    works.push(work);
    await work.start();
    assert.deepEqual(warnings, ['durable work: no connections of its own for leases']);
    assert.equal(await work.record('cron', 'fire-2', { taskId: 't' }), true);
    assert.equal(await work.stillOwned('fire-2'), true, 'confirmed over the shared pool');
  });
});

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + (HELD_S - 5) * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${HELD_S - 5} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
