import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CronStore, REPLY_LIMIT, RUNS_KEPT } from '../../src/scheduler/cron-store.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const fields = { name: 'Report', schedule: '0 0 9 * * *', message: 'write it', target: 'main' };
const T0 = 1_750_000_000_000;

for (const kind of DATABASE_KINDS)
  describe(`cron store on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });
    const open = async (now: () => number = () => T0) => {
      database = await createTestDatabase(kind, process.env);
      return new CronStore(await database.open(), now);
    };

    it('insert, get and list in byte order of id; a taken id is refused', async () => {
      const store = await open();
      for (const id of ['b', 'B', 'a-1', 'A']) assert.equal(await store.insert(id, fields), true);
      assert.equal(await store.insert('b', { ...fields, name: 'other' }), false);
      assert.deepEqual(
        (await store.list()).map((task) => task.id),
        ['A', 'B', 'a-1', 'b'],
      );
      assert.deepEqual(await store.get('b'), {
        id: 'b',
        ...fields,
        disabled: false,
        createdAt: new Date(T0).toISOString(),
        updatedAt: new Date(T0).toISOString(),
        lastRun: null,
      });
      assert.equal(await store.get('missing'), undefined);
    });

    it('disable and enable round-trip as a boolean and touch updatedAt', async () => {
      let now = T0;
      const store = await open(() => now);
      await store.insert('t', fields);
      now = T0 + 5000;
      await store.setDisabled('t', true);
      assert.equal((await store.get('t'))?.disabled, true);
      assert.equal((await store.get('t'))?.updatedAt, new Date(T0 + 5000).toISOString());
      await store.setDisabled('t', false);
      assert.equal((await store.get('t'))?.disabled, false);
    });

    it('records runs: the last one on the task, the newest RUNS_KEPT in the history, capped texts', async () => {
      const store = await open();
      await store.insert('t', fields);
      for (let n = 0; n < RUNS_KEPT + 5; n++) {
        await store.recordRun({
          taskId: 't',
          startedAt: T0 + n * 1000,
          endedAt: T0 + n * 1000 + 250,
          status: n % 2 === 0 ? 'success' : 'failure',
          ...(n % 2 === 0 ? { reply: `reply ${n} ${'x'.repeat(REPLY_LIMIT)}` } : { error: `error ${n}` }),
        });
      }
      const runs = await store.runs('t');
      assert.equal(runs.length, RUNS_KEPT);
      assert.equal(runs[0]?.startedAt, new Date(T0 + (RUNS_KEPT + 4) * 1000).toISOString());
      assert.equal(runs.at(-1)?.startedAt, new Date(T0 + 5 * 1000).toISOString());
      assert.equal(runs[0]?.durationMs, 250);
      assert.equal(runs[0]?.reply?.length, REPLY_LIMIT);
      assert.deepEqual(runs[1], {
        startedAt: new Date(T0 + (RUNS_KEPT + 3) * 1000).toISOString(),
        endedAt: new Date(T0 + (RUNS_KEPT + 3) * 1000 + 250).toISOString(),
        status: 'failure',
        durationMs: 250,
        error: `error ${RUNS_KEPT + 3}`,
      });
      const task = await store.get('t');
      assert.deepEqual(task?.lastRun, runs[0]);
    });

    it('a run of a deleted task records nothing; remove deletes the task and its runs', async () => {
      const store = await open();
      await store.insert('gone', fields);
      await store.insert('kept', fields);
      const run = { startedAt: T0, endedAt: T0 + 10, status: 'success' as const, reply: 'ok' };
      await store.recordRun({ taskId: 'gone', ...run });
      await store.recordRun({ taskId: 'kept', ...run });
      await store.remove('gone');
      assert.equal(await store.get('gone'), undefined);
      assert.deepEqual(await store.runs('gone'), []);
      await store.recordRun({ taskId: 'gone', ...run });
      assert.deepEqual(await store.runs('gone'), []);
      assert.equal((await store.runs('kept')).length, 1);
    });
  });
