import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { AppError } from '../../src/core/errors.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine, recorder, registerProbe } from './helpers.ts';

const transform = (id: string, script: string) => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});

test('a filter, a transform and an end node give one reply', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'f', type: 'jsFilter', configuration: { jsScript: 'return msg.temperature > 10;' } },
        transform('t', 'msg.hot = true; metadata.unit = "C"; return {msg, metadata, msgType: "HOT"};'),
        { id: 'e', type: 'end' },
      ],
      [
        ['f', 'True', 't'],
        ['t', 'Success', 'e'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage({ temperature: 21 }, { metadata: { device: 'd1' } }));
  assert.equal(result.outcome, 'success');
  assert.equal(result.results.length, 1);
  const [reply] = result.results;
  assert.deepEqual(JSON.parse(reply?.data ?? ''), { temperature: 21, hot: true });
  assert.deepEqual(reply?.metadata, { device: 'd1', unit: 'C' });
  assert.equal(reply?.type, 'HOT');
  await engine.close();
});

test('each connection of a fan-out gets its own copy of the message', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain(
      'c1',
      [
        { id: 'fork', type: 'fork' },
        { id: 'left', type: 'probe', configuration: { label: 'left', set: { mark: 'left' } } },
        { id: 'right', type: 'probe', configuration: { label: 'right', set: { mark: 'right' } } },
      ],
      [
        ['fork', 'Success', 'left'],
        ['fork', 'Success', 'right'],
      ],
    ),
  );
  const input = newMessage({ n: 1 }, { metadata: { origin: 'test' } });
  const result = await engine.execute('c1', input);
  // The right branch started after the left one had written its mark, and did not see it.
  assert.deepEqual(
    probes.seen.map((seen) => [seen.label, seen.metadata]),
    [
      ['left', { origin: 'test' }],
      ['right', { origin: 'test' }],
    ],
  );
  assert.deepEqual(result.results.map((message) => message.metadata['mark']).sort(), ['left', 'right']);
  assert.deepEqual(input.metadata, { origin: 'test' });
  await engine.close();
});

test('a relation without a matching connection ends its branch without error', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'f', type: 'jsFilter', configuration: { jsScript: 'return false;' } },
        { id: 'e', type: 'end' },
      ],
      [['f', 'True', 'e']],
    ),
  );
  const result = await engine.execute('c1', newMessage({ a: 1 }));
  assert.deepEqual(result.outcome, 'success');
  assert.equal(result.error, undefined);
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { a: 1 });
  await engine.close();
});

test('a node that throws takes the Failure relation with metadata.errorMsg', async () => {
  const registry = createDefaultRegistry();
  registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain(
      'c1',
      [
        { id: 'boom', type: 'probe', configuration: { label: 'boom', fail: 'it broke' } },
        transform('report', 'return {msg: "handled: " + metadata.errorMsg, metadata, msgType};'),
        { id: 'e', type: 'end' },
      ],
      [
        ['boom', 'Failure', 'report'],
        ['report', 'Success', 'e'],
      ],
    ),
  );
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'success');
  assert.equal(result.results[0]?.data, 'handled: it broke');
  assert.equal(result.results[0]?.metadata['errorMsg'], 'it broke');
  await engine.close();
});

test('a branch ending on Failure without a Failure connection fails the run', async () => {
  const registry = createDefaultRegistry();
  registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain('c1', [{ id: 'boom', type: 'probe', configuration: { label: 'b', fail: 'it broke' } }]),
  );
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'it broke');
  assert.equal(result.results[0]?.metadata['errorMsg'], 'it broke');
  await engine.close();
});

test('a reply through an end node wins over a failed branch; without end every branch end is a result', async () => {
  const registry = createDefaultRegistry();
  registerProbe(registry);
  const engine = createEngine({ registry });
  const nodes = [
    { id: 'fork', type: 'fork' },
    { id: 'ok', type: 'probe', configuration: { label: 'ok' } },
    { id: 'bad', type: 'probe', configuration: { label: 'bad', fail: 'nope' } },
    { id: 'e', type: 'end' },
  ];
  await engine.load(
    chain('withEnd', nodes, [
      ['fork', 'Success', 'ok'],
      ['fork', 'Success', 'bad'],
      ['ok', 'Success', 'e'],
    ]),
  );
  const withEnd = await engine.execute('withEnd', newMessage('x'));
  assert.equal(withEnd.outcome, 'success');
  assert.equal(withEnd.results.length, 1);
  assert.equal(withEnd.results[0]?.metadata['errorMsg'], undefined);

  await engine.load(
    chain(
      'noEnd',
      nodes.slice(0, 2).concat([{ id: 'ok2', type: 'probe', configuration: { label: 'ok2' } }]),
      [
        ['fork', 'Success', 'ok'],
        ['fork', 'Success', 'ok2'],
      ],
    ),
  );
  const noEnd = await engine.execute('noEnd', newMessage('x'));
  assert.equal(noEnd.outcome, 'success');
  assert.equal(noEnd.results.length, 2);
  await engine.close();
});

test('run events come in order: node-start, node-end per node, run-end last', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'f', type: 'jsFilter', configuration: { jsScript: 'return true;' } },
        { id: 'e', type: 'end' },
      ],
      [['f', 'True', 'e']],
    ),
  );
  const { events, onEvent } = recorder();
  const result = await engine.execute('c1', newMessage('x'), { onEvent });
  assert.deepEqual(
    events.map((event) => [event.type, 'nodeId' in event ? event.nodeId : '']),
    [
      ['node-start', 'f'],
      ['node-end', 'f'],
      ['node-start', 'e'],
      ['node-end', 'e'],
      ['run-end', ''],
    ],
  );
  assert.deepEqual(events[1], { type: 'node-end', chainId: 'c1', nodeId: 'f', relations: ['True'] });
  assert.deepEqual(events[4], { type: 'run-end', chainId: 'c1', result });
  await engine.close();
});

test('a failing node reports its error in node-end, and the run its failure as a typed field', async () => {
  const engine = createEngine();
  await engine.load(
    chain('c1', [
      { id: 'f', type: 'jsFilter', configuration: { jsScript: 'throw new Error("bad input");' } },
    ]),
  );
  const { events, onEvent } = recorder();
  const result = await engine.execute('c1', newMessage('x'), { onEvent });
  assert.deepEqual(events[1], {
    type: 'node-end',
    chainId: 'c1',
    nodeId: 'f',
    relations: ['Failure'],
    error: 'Error: bad input',
  });
  assert.equal(result.error, 'Error: bad input');
  // What the node threw travels with the result, for callers that answer with its kind.
  const { cause, ...failure } = result.failure ?? {};
  assert.deepEqual(failure, { nodeId: 'f', message: 'Error: bad input' });
  assert.ok(cause instanceof Error);
  assert.match(cause.message, /bad input$/);
  await engine.close();
});

test('an abort signal ends a run promptly with "run cancelled"', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c1',
      [
        { id: 'wait', type: 'delay', configuration: { delayMs: 10_000 } },
        { id: 'e', type: 'end' },
      ],
      [['wait', 'Success', 'e']],
    ),
  );
  const controller = new AbortController();
  const { events, onEvent } = recorder();
  const started = Date.now();
  const run = engine.execute('c1', newMessage('x'), { signal: controller.signal, onEvent });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(
    run,
    (error: unknown) =>
      error instanceof AppError && error.kind === 'unavailable' && error.message === 'run cancelled',
  );
  assert.ok(Date.now() - started < 1000, 'the run ended promptly');
  assert.deepEqual(
    events.map((event) => event.type),
    ['node-start', 'run-end'],
  );
  await engine.close();
});

test('an abort whose reason is an AppError rejects with that error, and no node runs after it', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(chain('c1', [{ id: 'p', type: 'probe', configuration: { label: 'p' } }]));
  const reason = new AppError('timeout', 'turn took too long');
  await assert.rejects(engine.execute('c1', newMessage('x'), { signal: AbortSignal.abort(reason) }), reason);
  assert.equal(probes.seen.length, 0);
  await engine.close();
});

test('running a chain that is not loaded is not-found', async () => {
  const engine = createEngine();
  await assert.rejects(engine.execute('missing', newMessage('x')), {
    name: 'AppError',
    kind: 'not-found',
    message: 'rule chain "missing" is not loaded',
  });
  await engine.close();
});

test('the turn context reaches every node, including those of a nested chain', async () => {
  const registry = createDefaultRegistry();
  const seen: unknown[] = [];
  registry.register({
    type: 'turn-probe',
    label: 'turn probe',
    description: 'records the turn context and depth',
    category: 'test',
    relations: ['Success'],
    configSchema: z.object({}),
    create: () => ({
      process(message, context) {
        seen.push([context.chainId, context.turn.agentId, context.depth]);
        return Promise.resolve([{ relation: 'Success', message }]);
      },
    }),
  });
  const engine = createEngine({ registry });
  await engine.load(chain('inner', [{ id: 'x', type: 'turn-probe' }]));
  await engine.load(
    chain(
      'outer',
      [
        { id: 'x', type: 'turn-probe' },
        { id: 'call', type: 'flow', configuration: { targetId: 'inner' } },
      ],
      [['x', 'Success', 'call']],
    ),
  );
  await engine.execute('outer', newMessage('x'), { turn: { agentId: 'agent-1' } });
  assert.deepEqual(seen, [
    ['outer', 'agent-1', 0],
    ['inner', 'agent-1', 1],
  ]);
  await engine.close();
});

test("the caller's message is not changed by the nodes it passes through", async () => {
  const registry = createDefaultRegistry();
  registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(
    chain('c1', [{ id: 'p', type: 'probe', configuration: { label: 'p', set: { touched: 'yes' } } }]),
  );
  const input = newMessage('x', { metadata: { origin: 'caller' } });
  const result = await engine.execute('c1', input);
  assert.deepEqual(result.results[0]?.metadata, { origin: 'caller', touched: 'yes' });
  assert.deepEqual(input.metadata, { origin: 'caller' });
  await engine.close();
});
