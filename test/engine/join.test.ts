import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine } from './helpers.ts';
import type { Link, NodeSpec } from './helpers.ts';

const transform = (id: string, script: string): NodeSpec => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});
const wait = (id: string, delayMs: number): NodeSpec => ({ id, type: 'delay', configuration: { delayMs } });

test('join waits for every branch of the fork and merges data and metadata', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        wait('slow', 40),
        transform('a', 'metadata.a = "1"; return {msg: {from: "a"}, metadata, msgType};'),
        transform('b', 'metadata.b = "2"; return {msg: {from: "b"}, metadata, msgType};'),
        { id: 'join', type: 'join' },
        { id: 'e', type: 'end' },
      ],
      [
        ['fork', 'Success', 'slow'],
        ['slow', 'Success', 'a'],
        ['fork', 'Success', 'b'],
        ['a', 'Success', 'join'],
        ['b', 'Success', 'join'],
        ['join', 'Success', 'e'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage({}, { metadata: { origin: 'o' } }));
  assert.equal(result.outcome, 'success');
  assert.equal(result.results.length, 1, 'the join fired once');
  const reply = result.results[0];
  assert.equal(reply?.dataType, 'JSON');
  // Arrival order: b did not wait, a did.
  assert.deepEqual(JSON.parse(reply?.data ?? ''), [{ from: 'b' }, { from: 'a' }]);
  assert.deepEqual(reply?.metadata, { origin: 'o', a: '1', b: '2' });
  await engine.close();
});

test('join counts a branch that ends before reaching it and fires without waiting for the timeout', async () => {
  const engine = createEngine({ joinTimeoutMs: 5000 });
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        transform('a', 'return {msg: "a", metadata, msgType};'),
        { id: 'dropped', type: 'jsFilter', configuration: { jsScript: 'return false;' } },
        { id: 'join', type: 'join' },
        { id: 'e', type: 'end' },
      ],
      [
        ['fork', 'Success', 'a'],
        ['fork', 'Success', 'dropped'],
        ['dropped', 'True', 'join'],
        ['a', 'Success', 'join'],
        ['join', 'Success', 'e'],
      ],
    ),
  );
  const started = Date.now();
  const result = await engine.execute('c1', newMessage('x'));
  assert.ok(Date.now() - started < 1000, 'did not wait for the join timeout');
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), ['a']);
  await engine.close();
});

test('join times out with Failure naming the wait, and the late branch is dropped', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        wait('late', 300),
        transform('quick', 'return {msg: "quick", metadata, msgType};'),
        { id: 'join', type: 'join', configuration: { timeout: 0.05 } },
        transform(
          'report',
          'return {msg: metadata.errorMsg + " | " + JSON.stringify(msg), metadata, msgType};',
        ),
        { id: 'e', type: 'end' },
      ],
      [
        ['fork', 'Success', 'late'],
        ['fork', 'Success', 'quick'],
        ['late', 'Success', 'join'],
        ['quick', 'Success', 'join'],
        ['join', 'Failure', 'report'],
        ['join', 'Success', 'e'],
        ['report', 'Success', 'e'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'success');
  assert.equal(result.results.length, 1, 'only the timed-out join reached the end');
  assert.equal(result.results[0]?.data, 'join timed out after 50 ms waiting for 1 branches | ["quick"]');
  await engine.close();
});

test('a join without its own timeout uses the engine default', async () => {
  const engine = createEngine({ joinTimeoutMs: 30 });
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        wait('late', 200),
        { id: 'quick', type: 'fork' },
        { id: 'join', type: 'join' },
      ],
      [
        ['fork', 'Success', 'late'],
        ['fork', 'Success', 'quick'],
        ['late', 'Success', 'join'],
        ['quick', 'Success', 'join'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'join timed out after 30 ms waiting for 1 branches');
  await engine.close();
});

test('nested fork/join pairs like parentheses', async () => {
  const engine = createEngine();
  const links: Link[] = [
    ['outer', 'Success', 'x'],
    ['outer', 'Success', 'inner'],
    ['inner', 'Success', 'y'],
    ['inner', 'Success', 'z'],
    ['y', 'Success', 'innerJoin'],
    ['z', 'Success', 'innerJoin'],
    ['innerJoin', 'Success', 'outerJoin'],
    ['x', 'Success', 'outerJoin'],
    ['outerJoin', 'Success', 'e'],
  ];
  await engine.load(
    chain(
      'c1',
      [
        { id: 'outer', type: 'fork' },
        { id: 'inner', type: 'fork' },
        // Long enough for y and z to reach the inner join first even on a slow worker thread.
        wait('x', 300),
        transform('y', 'return {msg: "y", metadata, msgType};'),
        transform('z', 'return {msg: "z", metadata, msgType};'),
        { id: 'innerJoin', type: 'join' },
        { id: 'outerJoin', type: 'join' },
        { id: 'e', type: 'end' },
      ],
      links,
    ),
  );
  const result = await engine.execute('c1', newMessage('x', { dataType: 'TEXT' }));
  assert.equal(result.results.length, 1);
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), [['y', 'z'], 'x']);
  await engine.close();
});

test('mergeToMap merges the branch objects into one', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        transform('a', 'return {msg: {a: 1}, metadata, msgType};'),
        transform('b', 'return {msg: {b: 2}, metadata, msgType};'),
        { id: 'join', type: 'join', configuration: { mergeToMap: true } },
      ],
      [
        ['fork', 'Success', 'a'],
        ['fork', 'Success', 'b'],
        ['a', 'Success', 'join'],
        ['b', 'Success', 'join'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage({}));
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { a: 1, b: 2 });
  await engine.close();
});
