// Durable work whose claim cannot be confirmed (the database away when the reply is about to go out)
// is not answered by this instance: with the database away past the lease, another instance may
// claim the row once the database is back and answer it, so a reply sent unconfirmed could be the
// second one. The chaos run saw exactly that: an apology sent during a PostgreSQL outage, then the
// answer of the instance that took the message over. Unconfirmed, the row is run again by its next
// claimer, once.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/storage/database.ts';
import { DurableWork, type ClaimedWork } from '../../src/storage/durable-work.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

describe('durable work: an unconfirmed claim sends nothing', () => {
  const databases: TestDatabase[] = [];
  const open: Db[] = [];
  after(async () => {
    for (const db of open) await db.destroy().catch(() => undefined);
    for (const database of databases) await database.drop();
  });

  it('stillOwned is false when the database does not answer, and another instance runs the work once', async () => {
    const database = await createTestDatabase('libsql', process.env);
    databases.push(database);
    const first = await database.open();
    const second = await database.open();
    open.push(second);
    const leaseMs = 300;
    const sendLeaseMs = 60_000;
    const a = new DurableWork(first, 'a', { leaseMs, sendLeaseMs, tickMs: 50 });
    const b = new DurableWork(second, 'b', { leaseMs, tickMs: 50 });
    const ran: ClaimedWork[] = [];
    b.handle('channel', async (work) => {
      ran.push(work);
      return 'done';
    });
    assert.equal(await a.record('channel', 'sent', { text: 'answered' }), true);
    const confirmed = Date.now();
    assert.equal(await a.stillOwned('sent'), true, 'owned while the database answers');
    // Confirmed for a send: held for the send lease, not the short one, so a database that stalls
    // for this instance between the send and the finish mark does not let another take it over.
    const row = await sql<{
      lease_until: number;
    }>`select lease_until from durable_work where id = ${'sent'}`.execute(second);
    assert.ok(Number(row.rows[0]?.lease_until) >= confirmed + sendLeaseMs, 'held for the send lease');
    assert.equal(await a.record('channel', 'm1', { text: 'hello' }), true);
    // The database goes away for instance a (its connection closed): every statement fails.
    await first.destroy();
    const started = Date.now();
    assert.equal(await a.stillOwned('m1', 200), false, 'not confirmed: not ours to answer');
    assert.ok(Date.now() - started >= 200, 'retried for the time it was given');
    // The lease runs out unrenewed; instance b claims the row and runs it, once.
    await b.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await b.status('m1'))?.status !== 'done') {
        assert.ok(Date.now() < deadline, 'the work was not taken over');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await b.stop();
    }
    assert.equal(ran.length, 1, 'the row confirmed for its send is not taken over');
    assert.deepEqual(ran[0]?.payload, { text: 'hello' });
    assert.equal(ran[0]?.attempts, 2);
    assert.deepEqual(await b.status('m1'), { status: 'done', owner: 'b', attempts: 2 });
  });
});
