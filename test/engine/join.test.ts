import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { joinNode } from '../../src/engine/nodes/join.ts';
import type { RuleMessage } from '../../src/engine/types.ts';
import { chain, createEngine, testServices } from './helpers.ts';
import type { Link, NodeSpec } from './helpers.ts';

const transform = (id: string, script: string): NodeSpec => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});
interface JoinRecord {
  msg: { data: string; dataType: string; metadata: Record<string, string> };
  err: string;
  nodeId: string;
}

/** RuleGo's join data: one `{msg, err, nodeId}` record per branch. */
const records = (message: RuleMessage | undefined): JoinRecord[] =>
  JSON.parse(message?.data ?? '') as JoinRecord[];

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
  // Arrival order: b did not wait, a did. Each record names its sender; its msg has no metadata.
  const arrived = records(reply);
  assert.deepEqual(
    arrived.map((item) => [item.nodeId, JSON.parse(item.msg.data), item.err, item.msg.metadata]),
    [
      ['b', { from: 'b' }, '', {}],
      ['a', { from: 'a' }, '', {}],
    ],
  );
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
  assert.deepEqual(
    records(result.results[0]).map((item) => item.msg.data),
    ['a'],
  );
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
          'return {msg: metadata.errorMsg + " | " + JSON.stringify(msg.map(r => r.nodeId + ":" + r.msg.data)), metadata, msgType};',
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
  assert.equal(
    result.results[0]?.data,
    'join timed out after 50 ms waiting for 1 branches | ["quick:quick"]',
  );
  await engine.close();
});

test("a join without a timeout, or with 0 or less, waits RuleGo's 30 s", async () => {
  const context = { chainId: 'c1', nodeId: 'join', vars: {}, services: testServices() };
  for (const timeout of [undefined, 0, -1]) {
    const config = timeout === undefined ? { mergeToMap: false } : { mergeToMap: false, timeout };
    const instance = await joinNode.create(config, context);
    assert.equal(instance.join?.timeoutMs, 30_000, `timeout ${String(timeout)}`);
  }
  const instance = await joinNode.create({ mergeToMap: false, timeout: 2 }, context);
  assert.equal(instance.join?.timeoutMs, 2000);
});

test('a branch arriving on Failure fails the join, naming the node and its error', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        transform('ok', 'metadata.ok = "1"; return {msg: {ok: true}, metadata, msgType};'),
        transform('bad', 'throw new Error("boom");'),
        { id: 'join', type: 'join' },
        transform('report', 'return {msg: {error: metadata.errorMsg, n: msg.length}, metadata, msgType};'),
        { id: 'e', type: 'end' },
      ],
      [
        ['fork', 'Success', 'ok'],
        ['fork', 'Success', 'bad'],
        ['ok', 'Success', 'join'],
        ['bad', 'Failure', 'join'],
        ['join', 'Failure', 'report'],
        ['join', 'Success', 'e'],
        ['report', 'Success', 'e'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage({}));
  assert.equal(result.results.length, 1);
  const reply = JSON.parse(result.results[0]?.data ?? '') as { error: string; n: number };
  assert.match(reply.error, /^NodeId=bad,Err=.*boom/);
  assert.equal(reply.n, 2, 'the failed branch is still one of the records');
  assert.equal(result.results[0]?.metadata['ok'], '1', 'successful branches give their metadata');
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
  const outer = records(result.results[0]);
  assert.deepEqual(
    outer.map((item) => item.nodeId),
    ['innerJoin', 'x'],
  );
  const inner = JSON.parse(outer[0]?.msg.data ?? '') as JoinRecord[];
  assert.deepEqual(
    inner.map((item) => item.msg.data),
    ['y', 'z'],
  );
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

test('mergeToMap puts data that is not an object under the sending node id', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        transform('a', 'return {msg: {a: 1}, metadata, msgType};'),
        transform('text', 'return {msg: "plain", metadata, msgType, dataType: "TEXT"};'),
        transform('list', 'return {msg: [1, 2], metadata, msgType};'),
        { id: 'join', type: 'join', configuration: { mergeToMap: true } },
      ],
      [
        ['fork', 'Success', 'a'],
        ['fork', 'Success', 'text'],
        ['fork', 'Success', 'list'],
        ['a', 'Success', 'join'],
        ['text', 'Success', 'join'],
        ['list', 'Success', 'join'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage({}));
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { a: 1, text: 'plain', list: [1, 2] });
  await engine.close();
});
