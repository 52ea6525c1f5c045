// The BullMQ trigger in process, against the real Redis: fires at their second, exactly once across
// workers; fires due while no worker ran are caught up; start-up reconciles the schedulers with the
// tasks once across instances; and the store records one fire once on both databases.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { after, afterEach, describe, it } from 'node:test';
import { Redis, type RedisOptions } from 'ioredis';
import type { Locks } from '../../src/cluster/locks.ts';
import { RedisLocks } from '../../src/cluster/redis-locks.ts';
import { BullMqTrigger, type BullMqCluster } from '../../src/scheduler/bullmq-scheduler.ts';
import {
  CronStore,
  FIRES_REMEMBERED_MS,
  RUNS_KEPT,
  type StoredCronTask,
} from '../../src/scheduler/cron-store.ts';
import { DurableWork } from '../../src/storage/durable-work.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';
import { REDIS_URL, eventually } from './instances.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function task(id: string, schedule: string, disabled = false): StoredCronTask {
  const at = new Date().toISOString();
  return {
    id,
    name: id,
    schedule,
    message: 'm',
    target: 'main',
    disabled,
    createdAt: at,
    updatedAt: at,
    lastRun: null,
  };
}

describe('BullMQ cron trigger', () => {
  const connections: Redis[] = [];
  const triggers: BullMqTrigger[] = [];
  const connect = (_role?: string, overrides?: RedisOptions): Redis => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2, ...overrides });
    connections.push(redis);
    return redis;
  };
  const silent = { info: () => undefined, warn: () => undefined };
  /** One "instance": its own connections and Redis locks, in the deployment's prefix. */
  const instance = (prefix: string): BullMqCluster => {
    const redis = connect();
    const locks: Locks = new RedisLocks(redis, { prefix, logger: silent });
    return { prefix, instanceId: randomBytes(3).toString('hex'), locks, redis, connect };
  };
  const trigger = (cluster: BullMqCluster): BullMqTrigger => {
    const made = new BullMqTrigger(cluster, { lockDurationMs: 2_000, stalledIntervalMs: 500 });
    triggers.push(made);
    return made;
  };

  afterEach(async () => {
    for (const made of triggers.splice(0)) await made.stop();
  });
  after(async () => {
    const cleanup = connect();
    for (const key of await cleanup.keys('test-trigger-*')) await cleanup.del(key);
    for (const redis of connections) redis.disconnect();
  });

  it('two workers hand over an every-second fire once per second, just before its second', async () => {
    const prefix = `test-trigger-${randomBytes(4).toString('hex')}:`;
    const tasks = [task('each', '* * * * * *')];
    const fires: Array<{ at: number; started: number }> = [];
    const fire = (_id: string, at: number) => {
      fires.push({ at, started: Date.now() });
      return Promise.resolve();
    };
    await trigger(instance(prefix)).start(() => Promise.resolve(tasks), fire);
    await trigger(instance(prefix)).start(() => Promise.resolve(tasks), fire);
    await sleep(4_200);
    const times = fires.map((one) => one.at);
    assert.ok(times.length >= 3, `fired ${times.length} times`);
    assert.equal(new Set(times).size, times.length, 'a fire ran twice');
    for (let index = 1; index < times.length; index++)
      assert.equal((times[index] as number) - (times[index - 1] as number), 1000);
    for (const one of fires) {
      assert.equal(one.at % 1000, 0);
      // Handed over up to half a second early: the scheduler checks the task, then waits for the second.
      const early = one.at - one.started;
      assert.ok(early > -100 && early <= 600, `handed over ${early} ms early`);
    }
  });

  it('fires due while no worker ran are caught up when one starts again', async () => {
    const prefix = `test-trigger-${randomBytes(4).toString('hex')}:`;
    const tasks = [task('each', '* * * * * *')];
    const fires = new Set<number>();
    const fire = (_id: string, at: number) => {
      fires.add(at);
      return Promise.resolve();
    };
    const first = trigger(instance(prefix));
    await first.start(() => Promise.resolve(tasks), fire);
    await eventually(async () => fires.size >= 2, 5_000, 'two fires');
    await first.stop();
    const stoppedAt = Date.now();
    await sleep(3_500);
    // A new instance: its start-up reconcile finds the scheduler in place; the late job catches up.
    await trigger(instance(prefix)).start(() => Promise.resolve(tasks), fire);
    await eventually(async () => Math.max(...fires) > stoppedAt + 5_000, 8_000, 'fires after restart');
    const times = [...fires].sort((x, y) => x - y);
    for (let index = 1; index < times.length; index++)
      assert.equal(
        (times[index] as number) - (times[index - 1] as number),
        1000,
        `gap after ${times[index - 1]}`,
      );
  });

  it('start-up reconciles once: missing schedulers made, orphans and disabled ones removed', async () => {
    const prefix = `test-trigger-${randomBytes(4).toString('hex')}:`;
    const before = [task('kept', '0 0 3 * * *'), task('orphan', '0 0 4 * * *'), task('off', '0 0 5 * * *')];
    const nothing = () => Promise.resolve();
    const seeding = trigger(instance(prefix));
    await seeding.start(() => Promise.resolve(before), nothing);
    await seeding.stop();
    const redis = connect();
    await redis.del(`${prefix}cron:reconciled`);
    const now = [task('kept', '0 0 3 * * *'), task('new', '0 30 * * * *'), task('off', '0 0 5 * * *', true)];
    let loads = 0;
    const load = () => {
      loads++;
      return Promise.resolve(now);
    };
    await Promise.all([1, 2, 3].map(() => trigger(instance(prefix)).start(load, nothing)));
    assert.equal(loads, 1, 'three instances starting together reconcile once');
    const ids = (await redis.zrange(`${prefix.replace(/:$/, '')}:cron:repeat`, 0, -1)).sort();
    assert.deepEqual(ids, ['kept', 'new']);
  });
});

for (const kind of DATABASE_KINDS)
  describe(`a fire recorded once on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });

    it('a second record of the same fire changes nothing; runs by hand never conflict', async () => {
      database = await createTestDatabase(kind, process.env);
      const store = new CronStore(await database.open());
      await store.insert('t', { name: 't', schedule: '* * * * * *', message: 'm', target: 'main' });
      const at = 1_750_000_000_000;
      const run = { taskId: 't', scheduledAt: at, status: 'success' as const };
      assert.equal(
        await store.recordRun({ ...run, startedAt: at + 5, endedAt: at + 10, reply: 'first' }),
        'recorded',
      );
      assert.equal(
        await store.recordRun({ ...run, startedAt: at + 4000, endedAt: at + 4100, reply: 'again' }),
        'duplicate',
      );
      assert.equal((await store.get('t'))?.lastRun?.reply, 'first');
      const byHand = { taskId: 't', status: 'success' as const, startedAt: at + 9000, endedAt: at + 9001 };
      assert.equal(await store.recordRun(byHand), 'recorded');
      assert.equal(await store.recordRun(byHand), 'recorded');
      const runs = await store.runs('t');
      assert.deepEqual(
        runs.map((one) => [one.scheduledAt ?? null, one.reply ?? null]),
        [
          [null, null],
          [null, null],
          [new Date(at).toISOString(), 'first'],
        ],
      );
      assert.deepEqual([...(await store.recordedFires('t', [at, at + 1000]))], [at]);
      assert.equal(await store.recordRun({ ...run, taskId: 'gone', startedAt: at, endedAt: at }), 'gone');
    });

    if (kind === 'postgres')
      it('a fire is claimed with its task read in one statement, and marked done with its record', async () => {
        database = await createTestDatabase(kind, process.env);
        const db = await database.open();
        const store = new CronStore(db);
        assert.equal(store.claimsInOneStatement, true);
        const a = new DurableWork(db, 'a');
        const b = new DurableWork(db, 'b');
        await store.insert('t', { name: 't', schedule: '* * * * * *', message: 'm', target: 'main' });
        await store.insert('off', { name: 'off', schedule: '* * * * * *', message: 'm', target: 'main' }, true);
        const at = 1_750_000_000_000;
        const claim = (work: DurableWork, taskId: string, when = at) =>
          store.claimFire(taskId, when, work.newRow('cron', `${taskId}@${when}`, { taskId, scheduledAt: when }));
        const first = await claim(a, 't');
        assert.equal(first.claimed, true);
        assert.equal(first.recorded, false);
        assert.equal(first.task?.schedule, '* * * * * *');
        // Another instance handed the same fire finds it taken.
        assert.equal((await claim(b, 't')).claimed, false);
        assert.deepEqual(await claim(a, 'gone'), { task: undefined, recorded: false, claimed: false });
        const disabled = await claim(a, 'off');
        assert.equal(disabled.claimed, false);
        assert.equal(disabled.task?.disabled, true);
        assert.equal(await a.status('off@' + at), undefined);
        assert.equal((await a.status(`t@${at}`))?.status, 'running');
        // The record marks the claim done only for its owner.
        const run = { taskId: 't', scheduledAt: at, startedAt: at, endedAt: at + 1, status: 'success' as const };
        assert.equal(await store.recordRun({ ...run, finishWork: { id: `t@${at}`, owner: 'b' } }), 'recorded');
        assert.equal((await a.status(`t@${at}`))?.status, 'running');
        assert.equal(await store.recordRun({ ...run, finishWork: { id: `t@${at}`, owner: 'a' } }), 'duplicate');
        assert.equal((await a.status(`t@${at}`))?.status, 'done');
        // A recorded fire is not claimed again, even under a new claim id.
        const again = await store.claimFire('t', at, a.newRow('cron', 'other', {}));
        assert.deepEqual([again.claimed, again.recorded], [false, true]);
      });

    if (kind === 'postgres')
      it('claims asked for together go in one statement, each answered as if alone', async () => {
        database = await createTestDatabase(kind, process.env);
        const db = await database.open();
        const a = new DurableWork(db, 'a');
        const b = new DurableWork(db, 'b');
        let statements = 0;
        const store = new CronStore(
          db.withPlugin({
            transformQuery: (args) => {
              statements++;
              return args.node;
            },
            transformResult: async (args) => args.result,
          }),
        );
        const fields = { schedule: '* * * * * *', message: 'm', target: 'main' };
        for (const id of ['t1', 't2', 't3']) await store.insert(id, { name: id, ...fields });
        await store.insert('off', { name: 'off', ...fields }, true);
        const at = 1_750_000_000_000;
        await store.recordRun({ taskId: 't3', scheduledAt: at, startedAt: at, endedAt: at, status: 'success' });
        const claim = (work: DurableWork, taskId: string) =>
          store.claimFire(taskId, at, work.newRow('cron', `${taskId}@${at}`, { taskId, scheduledAt: at }));
        statements = 0;
        const together = await Promise.all([
          claim(a, 't1'),
          // The same fire twice in one batch (a job handed over twice): claimed once.
          claim(a, 't2'),
          claim(b, 't2'),
          claim(a, 't3'),
          claim(a, 'off'),
          claim(a, 'gone'),
        ]);
        assert.equal(statements, 1);
        assert.deepEqual(
          together.map((one) => [one.task?.id ?? null, one.claimed, one.recorded]),
          [
            ['t1', true, false],
            ['t2', true, false],
            ['t2', false, false],
            ['t3', false, true],
            ['off', false, false],
            [null, false, false],
          ],
        );
        assert.equal(together[0]?.task?.schedule, '* * * * * *');
        assert.equal((await a.status(`t1@${at}`))?.status, 'running');
        assert.equal((await a.status(`t2@${at}`))?.owner, 'a');
        assert.equal(await a.status(`t3@${at}`), undefined);
        assert.equal(await a.status(`off@${at}`), undefined);
        // Claimed already: another instance's batch finds them taken.
        const later = await Promise.all([claim(b, 't1'), claim(b, 't2')]);
        assert.deepEqual(
          later.map((one) => one.claimed),
          [false, false],
        );
      });

    if (kind === 'postgres')
      it('records asked for together go in one statement per task, each answered as if alone', async () => {
        database = await createTestDatabase(kind, process.env);
        const db = await database.open();
        const work = new DurableWork(db, 'a');
        let statements = 0;
        const store = new CronStore(
          db.withPlugin({
            transformQuery: (args) => {
              statements++;
              return args.node;
            },
            transformResult: async (args) => args.result,
          }),
        );
        const fields = { schedule: '* * * * * *', message: 'm', target: 'main' };
        for (const id of ['t1', 't2', 't3']) await store.insert(id, { name: id, ...fields });
        const at = 1_750_000_000_000;
        const run = (taskId: string, when: number, reply: string) =>
          ({ taskId, scheduledAt: when, startedAt: when, endedAt: when + 1, status: 'success', reply }) as const;
        assert.equal(await store.recordRun(run('t3', at, 'before')), 'recorded');
        assert.equal(
          await store.claimFire('t1', at, work.newRow('cron', `t1@${at}`, {})).then((one) => one.claimed),
          true,
        );
        statements = 0;
        const together = await Promise.all([
          store.recordRun({ ...run('t1', at, 'one'), finishWork: { id: `t1@${at}`, owner: 'a' } }),
          store.recordRun(run('t2', at, 'two')),
          // The same task twice (a caught-up fire beside the current one): a statement each.
          store.recordRun(run('t2', at + 1000, 'two later')),
          store.recordRun(run('t3', at, 'again')),
          store.recordRun(run('gone', at, 'none')),
        ]);
        assert.deepEqual(together, ['recorded', 'recorded', 'recorded', 'duplicate', 'gone']);
        assert.equal(statements, 2);
        assert.equal((await work.status(`t1@${at}`))?.status, 'done');
        assert.equal((await store.get('t1'))?.lastRun?.reply, 'one');
        assert.equal((await store.get('t2'))?.lastRun?.reply, 'two later');
        assert.equal((await store.get('t3'))?.lastRun?.reply, 'before', 'a duplicate changes nothing');
        assert.deepEqual(
          (await store.runs('t2')).map((one) => one.reply),
          ['two later', 'two'],
        );
      });

    if (kind === 'postgres')
      it('a record does not wait for a work row another statement holds; the caller marks it then', async () => {
        database = await createTestDatabase(kind, process.env);
        const db = await database.open();
        const store = new CronStore(db);
        const work = new DurableWork(db, 'a');
        await store.insert('t', { name: 't', schedule: '* * * * * *', message: 'm', target: 'main' });
        const at = 1_750_000_000_000;
        const id = `t@${at}`;
        assert.equal((await store.claimFire('t', at, work.newRow('cron', id, {}))).claimed, true);
        // Another statement (durable work renewing many leases at once) holds the row.
        let release = (): void => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        let taken = (): void => undefined;
        const lockTaken = new Promise<void>((resolve) => (taken = resolve));
        const holder = db.transaction().execute(async (trx) => {
          await sql`select id from durable_work where id = ${id} for update`.execute(trx);
          taken();
          await held;
        });
        await lockTaken;
        const run = { taskId: 't', scheduledAt: at, startedAt: at, endedAt: at + 1, status: 'success' as const };
        assert.deepEqual(await store.recordFire({ ...run, finishWork: { id, owner: 'a' } }), {
          outcome: 'recorded',
          finished: false,
        });
        release();
        await holder;
        assert.equal((await work.status(id))?.status, 'running', 'left for the caller to mark');
        assert.deepEqual(await store.recordFire({ ...run, finishWork: { id, owner: 'a' } }), {
          outcome: 'duplicate',
          finished: true,
        });
        assert.equal((await work.status(id))?.status, 'done');
      });

    it('fires are remembered for 15 minutes past the last 20 runs, so a late second run is not recorded', async () => {
      database = await createTestDatabase(kind, process.env);
      let now = 1_750_000_000_000;
      const store = new CronStore(await database.open(), () => now);
      await store.insert('t', { name: 't', schedule: '* * * * * *', message: 'm', target: 'main' });
      const record = (at: number) =>
        store.recordRun({ taskId: 't', scheduledAt: at, startedAt: at, endedAt: at + 1, status: 'success' });
      const first = now;
      for (let n = 0; n < RUNS_KEPT + 5; n++) {
        now = first + n * 1000;
        assert.equal(await record(now), 'recorded');
      }
      assert.equal((await store.runs('t')).length, RUNS_KEPT);
      assert.equal(await record(first), 'duplicate');
      // Fifteen minutes on, the oldest fires beyond the last 20 runs are gone.
      now = first + FIRES_REMEMBERED_MS + 60_000;
      assert.equal(await record(now), 'recorded');
      assert.equal(await record(first), 'recorded');
    });
  });
