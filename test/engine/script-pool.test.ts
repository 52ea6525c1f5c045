// Scripts run in worker threads under a watchdog: a script that QuickJS's own time check cannot stop
// in time ends in a clear Failure while the event loop keeps serving, and the pool recovers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { ScriptPool } from '../../src/engine/sandbox/script-pool.ts';
import { workerEntry } from '../../src/core/worker-entry.ts';
import { chain, createEngine, testServices } from './helpers.ts';

/** Largest gap between ticks of a 20 ms interval while `work` runs: the event loop's responsiveness. */
async function withTicks<T>(work: () => Promise<T>): Promise<{ value: T; maxGapMs: number; ticks: number }> {
  let last = Date.now();
  let maxGapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks += 1;
  }, 20);
  try {
    const value = await work();
    maxGapMs = Math.max(maxGapMs, Date.now() - last);
    return { value, maxGapMs, ticks };
  } finally {
    clearInterval(timer);
  }
}

const heavyLoops: Array<[string, string]> = [
  ['arrays', 'while (true) new Array(1e6).fill(1);'],
  ['string splits', "while (true) 'x'.repeat(1e6).split('');"],
];

for (const [name, script] of heavyLoops) {
  test(`a loop of heavy built-in calls (${name}) times out on time and never blocks the event loop`, async () => {
    // A budget big enough that the loops run into the time limit, not the memory limit.
    const services = testServices({ scriptTimeoutMs: 500, scriptMemoryBytes: 64 << 20 });
    const engine = createEngine({ services });
    await engine.load(
      chain('c1', [
        {
          id: 'f',
          type: 'jsFilter',
          configuration: { jsScript: `if (msg.evil) { ${script} } return true;` },
        },
      ]),
    );
    const started = Date.now();
    const {
      value: bad,
      maxGapMs,
      ticks,
    } = await withTicks(() => engine.execute('c1', newMessage({ evil: true })));
    const elapsed = Date.now() - started;
    assert.equal(bad.outcome, 'failure');
    assert.equal(bad.error, 'script timed out after 500 ms');
    assert.ok(elapsed < 500 + 2000, `the run took ${elapsed} ms`);
    assert.ok(maxGapMs < 400, `the event loop stalled for ${maxGapMs} ms`);
    assert.ok(ticks >= 10, `the interval ticked ${ticks} times`);
    const good = await engine.execute('c1', newMessage({}));
    assert.equal(good.outcome, 'success', 'the replaced worker has the script compiled again');
    assert.equal(good.results[0]?.metadata['errorMsg'], undefined);
    await engine.close();
  });
}

test('another chain answers while a hostile script holds a worker', async () => {
  // The second worker starts only now (the pool grows under load): on a busy machine that took
  // over 2 s, so the hostile script is given 6 s before it is stopped.
  const engine = createEngine({ services: testServices({ scriptTimeoutMs: 6000, scriptWorkers: 2 }) });
  await engine.load(
    chain('hostile', [
      { id: 'f', type: 'jsFilter', configuration: { jsScript: 'while (true) new Array(1e6).fill(1);' } },
    ]),
  );
  await engine.load(
    chain('fine', [
      {
        id: 't',
        type: 'jsTransform',
        configuration: { jsScript: 'return {msg: msg.n + 1, metadata, msgType};' },
      },
    ]),
  );
  let hostileDone = false;
  const hostile = engine.execute('hostile', newMessage({})).finally(() => {
    hostileDone = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const fine = await engine.execute('fine', newMessage({ n: 1 }));
  assert.equal(fine.results[0]?.data, '2');
  assert.equal(hostileDone, false, 'the healthy chain answered before the hostile one was stopped');
  assert.equal((await hostile).error, 'script timed out after 6000 ms');
  await engine.close();
});

test('many concurrent calls are spread over the workers and all succeed', async () => {
  const entry = workerEntry(new URL('./fixtures/tagging-script-worker.ts', import.meta.url));
  const pool = new ScriptPool({ workers: 2, entry });
  // Each call spins for about a millisecond, so the queue backs up and the second worker joins in.
  const id = await pool.compile(
    '(input) => { const until = Date.now() + 1; while (Date.now() < until) {} return input; }',
    { timeoutMs: 2000, memoryBytes: 16 << 20 },
  );
  const outputs = await Promise.all(Array.from({ length: 1000 }, (_, n) => pool.call(id, String(n))));
  const workers = new Set<string>();
  outputs.forEach((output, n) => {
    const [worker, echoed] = output.split(':');
    assert.equal(echoed, String(n));
    workers.add(worker ?? '');
  });
  assert.equal(workers.size, 2, 'both workers ran calls');
  await pool.close();
});

test('calls batched behind a call that is stopped run again and succeed', async () => {
  const pool = new ScriptPool({ workers: 1 });
  const id = await pool.compile(
    "(input) => { if (input === 'spin') while (true) new Array(1e6).fill(1); return input + '!'; }",
    { timeoutMs: 300, memoryBytes: 16 << 20 },
  );
  const calls = ['spin', 'a', 'b', 'c'].map((input) => pool.call(id, input));
  const [spin, ...rest] = await Promise.allSettled(calls);
  assert.equal(spin?.status, 'rejected');
  assert.equal((spin as PromiseRejectedResult).reason.message, 'script timed out after 300 ms');
  assert.deepEqual(
    rest.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : outcome.reason)),
    ['a!', 'b!', 'c!'],
  );
  await pool.close();
});

test('a top-level loop that QuickJS cannot interrupt in time fails the compile, and the pool goes on', async () => {
  const pool = new ScriptPool({ workers: 1 });
  const limits = { timeoutMs: 300, memoryBytes: 16 << 20, compileTimeoutMs: 300 };
  await assert.rejects(pool.compile('(() => { while (true) new Array(1e6).fill(1); })()', limits), {
    name: 'ScriptError',
    message: 'script timed out after 300 ms',
  });
  // A fresh worker replaces the one ended; its start is not held to the 300 ms (a busy machine).
  const id = await pool.compile('(input) => input.toUpperCase()', { ...limits, compileTimeoutMs: 5000 });
  assert.equal(await pool.call(id, 'abc'), 'ABC');
  await pool.close();
});

test('a body that closes its function early runs at load, and is stopped there', async () => {
  // QuickJS's Function constructor pastes the body into source text, so this loop runs at compile.
  const engine = createEngine({ services: testServices({ scriptTimeoutMs: 200 }) });
  const jsScript = '}); while (true) new Array(1e6).fill(1); (function () {';
  const started = Date.now();
  const { value: outcome, maxGapMs } = await withTicks(() =>
    engine.load(chain('c1', [{ id: 'f', type: 'jsFilter', configuration: { jsScript } }])).then(
      () => 'loaded',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    ),
  );
  // A compile gets at least 5 s (a fresh worker on a busy machine), whatever the call limit.
  assert.equal(outcome, 'rule chain "c1": node "f": script timed out after 5000 ms');
  assert.ok(Date.now() - started < 5000 + 10_000, `the load took ${Date.now() - started} ms`);
  assert.ok(maxGapMs < 400, `the event loop stalled for ${maxGapMs} ms`);
  await engine.close();
});

test('an aborted call settles at once while its worker is still busy', async () => {
  const pool = new ScriptPool({ workers: 1 });
  const id = await pool.compile('(input) => { while (true) {} }', { timeoutMs: 2000, memoryBytes: 16 << 20 });
  const controller = new AbortController();
  const started = Date.now();
  const call = pool.call(id, 'x', controller);
  setTimeout(() => controller.abort(new Error('client went away')), 50);
  await assert.rejects(call, { message: 'client went away' });
  assert.ok(Date.now() - started < 1000, `settled after ${Date.now() - started} ms`);
  await pool.close();
});

test('an input larger than the memory budget fails without reaching a worker', async () => {
  const pool = new ScriptPool({ workers: 1 });
  const id = await pool.compile('(input) => String(input.length)', { timeoutMs: 500, memoryBytes: 1 << 20 });
  await assert.rejects(pool.call(id, 'x'.repeat(2 << 20)), { message: 'script exceeded memory limit' });
  assert.equal(await pool.call(id, 'x'.repeat(1000)), '1000');
  await pool.close();
});

test('a worker that runs out of heap fails its call with the memory limit and is replaced', async () => {
  const entry = workerEntry(new URL('./fixtures/fake-script-worker.ts', import.meta.url));
  const pool = new ScriptPool({ workers: 1, workerHeapMb: 32, entry });
  const id = await pool.compile('unused', { timeoutMs: 60_000, memoryBytes: 16 << 20 });
  const [oom, after] = await Promise.allSettled([pool.call(id, 'oom'), pool.call(id, 'after')]);
  assert.equal(oom.status, 'rejected');
  assert.equal((oom as PromiseRejectedResult).reason.message, 'script exceeded memory limit');
  assert.deepEqual(after, { status: 'fulfilled', value: 'after' }, 'the call batched with it ran again');
  await assert.rejects(pool.call(id, 'exit'), { message: /^script worker stopped: / });
  assert.equal(await pool.call(id, 'still here'), 'still here');
  await pool.close();
});

test('a pool whose worker cannot start fails compiles with the reason instead of retrying forever', async () => {
  const entry = workerEntry(new URL('./fixtures/no-such-worker.ts', import.meta.url));
  const pool = new ScriptPool({ workers: 2, entry });
  await assert.rejects(pool.compile('(input) => input', { timeoutMs: 500, memoryBytes: 16 << 20 }), {
    message: /^script worker failed to start: /,
  });
  await pool.close();
});

test('engine.close() ends the workers: a process with a script still running exits', () => {
  const fixture = new URL('./fixtures/close-while-running.ts', import.meta.url);
  const started = Date.now();
  const child = spawnSync(process.execPath, ['--import', 'tsx', fixture.pathname], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const elapsed = Date.now() - started;
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { outcome: 'failure', error: 'script sandbox is closed' });
  // The script's own limit is 30 s: exiting well before it means close() ended the busy worker.
  assert.ok(elapsed < 15_000, `the child took ${elapsed} ms to exit`);
});
