import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine, recorder, registerProbe } from './helpers.ts';
import type { NodeSpec } from './helpers.ts';

const transform = (id: string, script: string): NodeSpec => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});

const caller = chain(
  'caller',
  [
    { id: 'call', type: 'flow', configuration: { targetId: 'target' } },
    { id: 'e', type: 'end' },
  ],
  [['call', 'Success', 'e']],
);

test('flow looks its target up when the message arrives, not at load', async () => {
  const engine = createEngine();
  await engine.load(caller);
  const before = await engine.execute('caller', newMessage('x'));
  assert.equal(before.outcome, 'failure');
  // RuleGo's text for a sub-chain that is not there.
  assert.equal(before.error, 'ruleChain id=target not found');

  await engine.load(
    chain('target', [transform('t', 'metadata.v = "1"; return {msg: {version: 1}, metadata, msgType};')]),
  );
  const after = await engine.execute('caller', newMessage('x', { metadata: { keep: 'yes' } }));
  assert.equal(after.outcome, 'success');
  // RuleGo's merge: one {msg, err, nodeId} record per end, metadata laid over the incoming one.
  const records = JSON.parse(after.results[0]?.data ?? '') as Array<{
    msg: { data: string; metadata: object };
    err: string;
    nodeId: string;
  }>;
  assert.deepEqual(
    records.map((item) => [item.nodeId, JSON.parse(item.msg.data), item.err, item.msg.metadata]),
    [['t', { version: 1 }, '', {}]],
  );
  assert.equal(after.results[0]?.dataType, 'JSON');
  assert.deepEqual(after.results[0]?.metadata, { keep: 'yes', v: '1' });

  await engine.load(chain('target', [transform('t', 'return {msg: {version: 2}, metadata, msgType};')]));
  const reloaded = await engine.execute('caller', newMessage('x'));
  const again = JSON.parse(reloaded.results[0]?.data ?? '') as Array<{ msg: { data: string } }>;
  assert.deepEqual(JSON.parse(again[0]?.msg.data ?? ''), { version: 2 });
  await engine.close();
});

test('flow passes a failed sub-chain on as Failure with its errorMsg', async () => {
  const engine = createEngine();
  await engine.load(caller);
  await engine.load(
    chain('target', [
      { id: 'f', type: 'jsFilter', configuration: { jsScript: 'throw new Error("sub failed")' } },
    ]),
  );
  const result = await engine.execute('caller', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'Error: sub failed');
  await engine.close();
});

test('flow with extend passes every sub-chain result on, and nested events share onEvent', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'target',
      [
        { id: 'fork', type: 'fork' },
        transform('a', 'return {msg: "a", metadata, msgType};'),
        transform('b', 'return {msg: "b", metadata, msgType};'),
      ],
      [
        ['fork', 'Success', 'a'],
        ['fork', 'Success', 'b'],
      ],
    ),
  );
  await engine.load(
    chain(
      'caller',
      [
        { id: 'call', type: 'flow', configuration: { targetId: 'target', extend: true } },
        { id: 'e', type: 'end' },
      ],
      [['call', 'Success', 'e']],
    ),
  );
  const { events, onEvent } = recorder();
  const result = await engine.execute('caller', newMessage('x'), { onEvent });
  assert.deepEqual(result.results.map((message) => message.data).sort(), ['a', 'b']);
  const starts = events.flatMap((event) =>
    event.type === 'node-start' ? [`${event.chainId}/${event.nodeId}`] : [],
  );
  assert.deepEqual(starts.slice(0, 2), ['caller/call', 'target/fork']);
  assert.ok(starts.includes('target/a') && starts.includes('target/b'));
  assert.deepEqual(
    events
      .filter((event) => event.type === 'run-end')
      .map((event) => event.type === 'run-end' && event.chainId),
    ['caller'],
    'only the outer run reports run-end',
  );
  await engine.close();
});

test('flow with extend forwards each end with its own relation; merged, a Failure end fails the flow', async () => {
  const target = chain(
    'target',
    [
      { id: 'fork', type: 'fork' },
      transform('ok', 'return {msg: "fine", metadata, msgType};'),
      { id: 'check', type: 'jsFilter', configuration: { jsScript: 'return false;' } },
      transform('bad', 'throw new Error("broke");'),
    ],
    [
      ['fork', 'Success', 'ok'],
      ['fork', 'Success', 'check'],
      ['fork', 'Success', 'bad'],
    ],
  );
  const calling = (extend: boolean) =>
    chain(
      'caller',
      [
        { id: 'call', type: 'flow', configuration: { targetId: 'target', extend } },
        transform('onTrue', 'return {msg: "T:" + msg, metadata, msgType};'),
        transform('onFalse', 'return {msg: "F", metadata, msgType};'),
        transform('onSuccess', 'return {msg: "S:" + msg, metadata, msgType};'),
        transform('onFailure', 'return {msg: "X:" + metadata.errorMsg, metadata, msgType};'),
      ],
      [
        ['call', 'True', 'onTrue'],
        ['call', 'False', 'onFalse'],
        ['call', 'Success', 'onSuccess'],
        ['call', 'Failure', 'onFailure'],
      ],
    );
  const engine = createEngine();
  await engine.load(target);
  await engine.load(calling(true));
  const extended = await engine.execute('caller', newMessage('x'));
  assert.deepEqual(extended.results.map((message) => message.data).sort(), ['F', 'S:fine', 'X:Error: broke']);
  await engine.load(calling(false));
  const merged = await engine.execute('caller', newMessage('x'));
  assert.equal(merged.results.length, 1);
  assert.equal(merged.results[0]?.data, 'X:Error: broke');
  await engine.close();
});

test('a chain calling itself is refused beyond maxDepth with a Failure', async () => {
  const engine = createEngine({ maxDepth: 3 });
  await engine.load(chain('self', [{ id: 'again', type: 'flow', configuration: { targetId: 'self' } }]));
  const result = await engine.execute('self', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'rule chain "self": calls nested deeper than 3 levels');
  await engine.close();
});

test('for runs the body once per array item and collects the results in mode 1', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'loop', type: 'for', configuration: { range: 'msg.items', do: 'double', mode: 1 } },
        { id: 'e', type: 'end' },
        transform('double', 'return {msg: {value: msg * 2, index: metadata._loopIndex}, metadata, msgType};'),
      ],
      [['loop', 'Success', 'e']],
    ),
  );
  const result = await engine.execute('c1', newMessage({ items: [1, 2, 3] }));
  assert.equal(result.outcome, 'success');
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), [
    { value: 2, index: '0' },
    { value: 4, index: '1' },
    { value: 6, index: '2' },
  ]);
  await engine.close();
});

test('for over a number range in mode 0 runs the body sequentially and passes the message on', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain(
      'c1',
      [
        { id: 'loop', type: 'for', configuration: { range: '1..3', do: 'body' } },
        { id: 'body', type: 'probe', configuration: { label: 'body' } },
      ],
      [],
    ),
  );
  const result = await engine.execute('c1', newMessage({ untouched: true }));
  // RuleGo: a number range keeps the data; the number is in _loopItem, its position in _loopIndex.
  assert.deepEqual(
    probes.seen.map((seen) => [seen.data, seen.metadata['_loopItem'], seen.metadata['_loopIndex']]),
    [
      ['{"untouched":true}', '1', '0'],
      ['{"untouched":true}', '2', '1'],
      ['{"untouched":true}', '3', '2'],
    ],
  );
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { untouched: true });
  await engine.close();
});

test('for in mode 2 feeds each iteration the previous result; a failing iteration fails the for', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [
      { id: 'loop', type: 'for', configuration: { range: 'msg', do: 'append', mode: 2 } },
      transform(
        'append',
        'if (metadata._loopItem === "bad") throw new Error("bad item"); return {msg: msg + metadata._loopItem, metadata, msgType, dataType: "TEXT"};',
      ),
    ]),
  );
  // The first iteration gets the item as data; later ones the previous result (RuleGo's ReplaceValues).
  const last = await engine.execute('c1', newMessage(['a', 'b', 'c']));
  assert.equal(last.outcome, 'success');
  assert.equal(last.results[0]?.data, 'aabc');
  const failed = await engine.execute('c1', newMessage(['a', 'bad', 'c']));
  assert.equal(failed.outcome, 'failure');
  assert.equal(failed.error, 'Error: bad item');
  await engine.close();
});

test('for merges the body metadata into its output; mode 0 restores the data; empty range iterates the data', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [
      { id: 'loop', type: 'for', configuration: { range: '', do: 'mark' } },
      transform(
        'mark',
        'metadata["seen_" + metadata._loopKey] = String(msg); return {msg, metadata, msgType};',
      ),
    ]),
  );
  const result = await engine.execute('c1', newMessage({ x: 1, y: 2 }, { metadata: { keep: 'k' } }));
  assert.equal(result.outcome, 'success');
  const reply = result.results[0];
  assert.deepEqual(JSON.parse(reply?.data ?? ''), { x: 1, y: 2 });
  assert.equal(reply?.metadata['keep'], 'k');
  assert.equal(reply?.metadata['seen_x'], '1');
  assert.equal(reply?.metadata['seen_y'], '2');
  assert.equal(reply?.metadata['_loopKey'], 'y');
  assert.equal(reply?.metadata['_loopIndex'], '1');
  const notIterable = await engine.execute('c1', newMessage('plain text'));
  assert.equal(notIterable.outcome, 'failure');
  await engine.close();
});

test('for in mode 3 starts each body without waiting and passes the data on', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain('c1', [
      { id: 'loop', type: 'for', configuration: { range: 'msg.items', do: 'body', mode: 3 } },
      { id: 'body', type: 'probe', configuration: { label: 'body' } },
    ]),
  );
  const result = await engine.execute('c1', newMessage({ items: [1, 2] }));
  assert.equal(result.outcome, 'success');
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { items: [1, 2] });
  await engine.close();
  assert.deepEqual(probes.seen.map((seen) => seen.metadata['_loopItem']).sort(), ['1', '2']);
});

test('for with chain:<id> runs another chain per item', async () => {
  const engine = createEngine();
  await engine.load(
    chain('square', [
      transform('sq', 'const n = Number(metadata._loopItem); return {msg: n * n, metadata, msgType};'),
    ]),
  );
  await engine.load(
    chain('c1', [{ id: 'loop', type: 'for', configuration: { range: '2..4', do: 'chain:square', mode: 1 } }]),
  );
  const result = await engine.execute('c1', newMessage({}));
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), [4, 9, 16]);
  await engine.close();
});

test('a nested run started with isolated keeps its events to itself', async () => {
  const registry = createDefaultRegistry();
  registry.register({
    type: 'callIsolated',
    label: 'calls a chain in isolation',
    description: 'test node',
    category: 'test',
    relations: ['Success'],
    configSchema: z.object({}),
    create: () => ({
      async process(message, context) {
        const result = await context.runChain('target', message, { isolated: true });
        return [{ relation: 'Success', message: result.results[0] ?? message }];
      },
    }),
  });
  const engine = createEngine({ registry });
  await engine.load(chain('target', [transform('t', 'return {msg: "from target", metadata, msgType};')]));
  await engine.load(chain('caller', [{ id: 'call', type: 'callIsolated' }]));
  const { events, onEvent } = recorder();
  const result = await engine.execute('caller', newMessage('x'), { onEvent });
  assert.equal(result.results[0]?.data, 'from target');
  assert.deepEqual(
    events.map((event) => `${event.type}:${'chainId' in event ? event.chainId : ''}`),
    ['node-start:caller', 'node-end:caller', 'run-end:caller'],
  );
  await engine.close();
});
