// Facts from RuleGo's components/action/delay_node.go and its tests: delayMs as a number, a
// numeric string or a template; metadata._delayOffsetMs shortens the wait; no delay set waits 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import type { RunResult } from '../../src/engine/types.ts';
import { chain, createEngine } from './helpers.ts';

async function timedDelay(
  configuration: Record<string, unknown> | undefined,
  metadata: Record<string, string> = {},
): Promise<{ result: RunResult; elapsed: number }> {
  const engine = createEngine();
  const node =
    configuration === undefined ? { id: 'd', type: 'delay' } : { id: 'd', type: 'delay', configuration };
  await engine.load(chain('c1', [node]));
  const started = Date.now();
  const result = await engine.execute('c1', newMessage({ wait: 120 }, { metadata }));
  const elapsed = Date.now() - started;
  await engine.close();
  return { result, elapsed };
}

test('an unconfigured delay waits 0 ms and passes the message on', async () => {
  const { result, elapsed } = await timedDelay(undefined);
  assert.equal(result.outcome, 'success');
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { wait: 120 });
  assert.ok(elapsed < 1000, `waited ${elapsed} ms`);
});

test('delayMs may be a numeric string', async () => {
  const { result, elapsed } = await timedDelay({ delayMs: '120' });
  assert.equal(result.outcome, 'success');
  assert.ok(elapsed >= 110, `waited only ${elapsed} ms`);
});

test('delayMs may be a template read from the message, metadata keys also at the top level', async () => {
  const fromMetadata = await timedDelay({ delayMs: '${metadata.delay}' }, { delay: '120' });
  assert.equal(fromMetadata.result.outcome, 'success');
  assert.ok(fromMetadata.elapsed >= 110, `waited only ${fromMetadata.elapsed} ms`);
  const topLevel = await timedDelay({ delayMs: '${delay}' }, { delay: '120' });
  assert.ok(topLevel.elapsed >= 110, `waited only ${topLevel.elapsed} ms`);
  const fromData = await timedDelay({ delayMs: '${msg.wait}' });
  assert.ok(fromData.elapsed >= 110, `waited only ${fromData.elapsed} ms`);
});

test('a template that does not give a whole number takes Failure', async () => {
  const { result } = await timedDelay({ delayMs: '${metadata.delay}' }, { delay: 'soon' });
  assert.equal(result.outcome, 'failure');
  assert.equal(
    result.error,
    `failed to parse delay time from template result 'soon': strconv.ParseInt: parsing "soon": invalid syntax`,
  );
});

test('metadata._delayOffsetMs is taken off the wait; at or over it, the message passes at once', async () => {
  const shortened = await timedDelay({ delayMs: 5000 }, { _delayOffsetMs: '4990' });
  assert.equal(shortened.result.outcome, 'success');
  assert.ok(shortened.elapsed < 1000, `waited ${shortened.elapsed} ms`);
  const passed = await timedDelay({ delayMs: 5000 }, { _delayOffsetMs: '6000' });
  assert.equal(passed.result.outcome, 'success');
  assert.ok(passed.elapsed < 1000, `waited ${passed.elapsed} ms`);
  const bad = await timedDelay({ delayMs: 10 }, { _delayOffsetMs: 'x' });
  assert.equal(bad.result.outcome, 'failure');
});

test('overwrite: a message arriving during the wait replaces the waiting one, and its own branch ends', async () => {
  // RuleGo's "Overlay" test: AA waits, BB arrives and takes its place, BB goes on when the wait ends.
  const engine = createEngine();
  await engine.load(
    chain('c1', [{ id: 'd', type: 'delay', configuration: { delayMs: 150, overwrite: true } }]),
  );
  const first = engine.execute('c1', newMessage('AA'));
  await new Promise((resolve) => setTimeout(resolve, 30));
  const second = await engine.execute('c1', newMessage('BB'));
  assert.equal(second.outcome, 'success');
  assert.deepEqual(second.results, []);
  const waited = await first;
  assert.deepEqual(
    waited.results.map((message) => message.data),
    ['BB'],
  );
  // The wait is over: the next message waits on its own.
  const third = await engine.execute('c1', newMessage('CC'));
  assert.deepEqual(
    third.results.map((message) => message.data),
    ['CC'],
  );
  await engine.close();
});
