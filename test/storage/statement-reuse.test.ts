import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Generated, type Kysely } from 'kysely';
import { connectLibsql } from '../../src/storage/database.ts';

// connectLibsql keeps prepared statements by SQL text; a statement that failed, or one whose
// table changed shape, must still run correctly the next time the same text comes.
describe('libsql statement reuse', () => {
  it('runs a statement again after it failed, and after its table changed', async () => {
    const db = (await connectLibsql(':memory:')) as unknown as Kysely<{
      t: { id: Generated<number>; v: string };
    }>;
    try {
      await sql`create table t (id integer primary key, v text unique)`.execute(db);
      const insert = (v: string) => db.insertInto('t').values({ v }).execute();
      await insert('a');
      await assert.rejects(insert('a'), /UNIQUE/);
      await insert('b');
      const select = () => db.selectFrom('t').selectAll().orderBy('id').execute();
      assert.deepEqual(await select(), [
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ]);
      await sql`alter table t add column w text default 'x'`.execute(db);
      assert.deepEqual(await select(), [
        { id: 1, v: 'a', w: 'x' },
        { id: 2, v: 'b', w: 'x' },
      ]);
      // Inside a transaction that rolls back, then outside it: same texts, same statements.
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ v: 'c' }).execute();
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal((await select()).length, 2);
    } finally {
      await db.destroy();
    }
  });
});
