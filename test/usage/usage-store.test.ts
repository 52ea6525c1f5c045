// The usage store writes its rows in batches: the calls that end within the batch window share one
// insert, a read of the table (or a stop) writes what is queued first, and nothing is lost when the
// window is cut short.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../src/storage/database.ts';
import { silentLogger, type Logger } from '../../src/core/logger.ts';
import { UsageStore, type UsageRow } from '../../src/usage/usage-store.ts';

const row = (agent: string, at = Date.now()): UsageRow => ({
  at,
  day: '2026-11-28',
  agent_id: agent,
  provider: 'fake',
  model: 'm',
  channel: 'api',
  account_id: '',
  user_id: '',
  input_tokens: 10,
  cached_input_tokens: 0,
  output_tokens: 5,
  reasoning_tokens: 0,
  cost_nanos: 0,
  estimated: 0,
  status: 'ok',
  duration_ms: 3,
});

describe('usage store batches', () => {
  let dir: string;
  let db: Db;
  /** Rows per insert, in order. */
  const inserts: number[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-store-'));
    db = await openDatabase(join(dir, 'usage.db'));
  });
  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** Set while the database refuses inserts into usage_calls (as one that is away does). */
  let refusing = false;
  /**
   * A store on a database that notes the rows of each insert into usage_calls (in `inserts`, emptied
   * here) and refuses them while `refusing` is set.
   */
  const storeOnCountingDb = (logger?: Logger): UsageStore => {
    const store = new UsageStore(logger);
    inserts.length = 0;
    const counting = db.withPlugin({
      transformQuery: (args) => {
        const node = args.node as { kind: string; values?: { values?: unknown[] } };
        if (node.kind === 'InsertQueryNode') {
          if (refusing) throw new Error('the database is away');
          inserts.push(node.values?.values?.length ?? 0);
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    store.attach(counting as Db);
    return store;
  };
  const stored = async (agent: string): Promise<number> => {
    const rows = await db
      .withTables<{ usage_calls: { agent_id: string } }>()
      .selectFrom('usage_calls')
      .where('agent_id', '=', agent)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .execute();
    return Number(rows[0]?.n ?? 0);
  };

  it('calls ending close together share one batch, written once the window has passed', async () => {
    const store = storeOnCountingDb();
    for (let index = 0; index < 30; index++) {
      store.add(row('close'));
      if (index % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    // Spread over three turns of the event loop, still one insert.
    for (let waited = 0; (await stored('close')) < 30; waited++) {
      assert.ok(waited < 500, 'the rows were written');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // One batch of 30 (as powers of two); a batch per event-loop turn would be 8+2 three times.
    assert.deepEqual(inserts, [16, 8, 4, 2]);
    await store.close();
  });

  it('a read of the table writes the queued rows first, without waiting for the window', async () => {
    const store = storeOnCountingDb();
    for (let index = 0; index < 5; index++) store.add(row('read'));
    assert.equal(await stored('read'), 0, 'still queued');
    const { totals } = await store.query(0, Date.now() + 1000, undefined);
    assert.ok(totals.calls >= 5);
    assert.equal(await stored('read'), 5);
    await store.close();
  });

  it('a full batch (256 rows) is written at once; closing writes the rest', async () => {
    const store = storeOnCountingDb();
    for (let index = 0; index < 257; index++) store.add(row('full'));
    await store.close();
    assert.equal(await stored('full'), 257);
    assert.deepEqual(inserts, [256, 1], 'the first 256 at once, the last one at close');
  });

  it('inserts a power of two of rows at a time, so few statement texts are ever prepared', async () => {
    const store = storeOnCountingDb();
    for (let index = 0; index < 137; index++) store.add(row('sizes'));
    await store.flush();
    assert.equal(await stored('sizes'), 137);
    assert.deepEqual(inserts, [128, 8, 1]);
    await store.close();
  });

  it('a failed insert keeps its rows; rows added meanwhile wait for the retry; all are written', async () => {
    const attempts: number[] = [];
    const logger = { ...silentLogger, warn: () => void attempts.push(performance.now()) };
    const store = storeOnCountingDb(logger);
    const waitFor = async (done: () => boolean | Promise<boolean>, what: string) => {
      for (let waited = 0; !(await done()); waited++) {
        assert.ok(waited < 1000, what);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    refusing = true;
    for (let index = 0; index < 3; index++) store.add(row('away'));
    await waitFor(() => attempts.length === 1, 'the first attempt failed');
    // Added during the outage: they wait for the retry rather than start an attempt 100 ms on.
    for (let index = 0; index < 3; index++) store.add(row('away'));
    await waitFor(() => attempts.length === 2, 'the retry failed too');
    assert.ok((attempts[1] as number) - (attempts[0] as number) >= 950, 'the retry came after its delay');
    refusing = false;
    await waitFor(async () => (await stored('away')) === 6, 'the rows were written after the outage');
    assert.equal(attempts.length, 2);
    assert.deepEqual(inserts, [4, 2]);
    await store.close();
  });
});
