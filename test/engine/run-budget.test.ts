// One run's work is bounded (run-budget.ts): node executions across the whole tree of nested runs,
// the fan-out of one node, and the event loop turns while a run works, so limits and aborts fire.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { z } from 'zod';
import { AppError } from '../../src/core/errors.ts';
import { newMessage } from '../../src/engine/message.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import type { NodeRegistry } from '../../src/engine/registry.ts';
import { chain, createEngine, testServices } from './helpers.ts';
import type { NodeSpec } from './helpers.ts';

const tooLarge = (message: RegExp) => (error: unknown) =>
  error instanceof AppError && error.kind === 'too-large' && message.test(error.message);

test('a fork into two flows back to its own chain fails on the budget, the event loop turning meanwhile', () => {
  const fixture = new URL('./fixtures/fork-bomb.ts', import.meta.url);
  const child = spawnSync(process.execPath, ['--import', 'tsx', fixture.pathname], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(child.signal, null, 'the run never ended: the child was killed after 20 s');
  assert.equal(child.status, 0, child.stderr);
  const report = JSON.parse(child.stdout) as Record<string, unknown>;
  assert.equal(report['rejected'], 'the run of rule chain "bomb" exceeded 10000 node executions');
  assert.equal(report['kind'], 'too-large');
  // Unbounded, the fork doubles its messages at every step and never ends. Bounded, it ends in well
  // under a second on a quiet machine; the bound here leaves room for a busy one (1.2 s was seen at
  // load 18 on two cores), and a benchmark is the place for its speed.
  assert.ok(Number(report['elapsedMs']) < 10_000, `the run took ${String(report['elapsedMs'])} ms`);
  assert.equal(report['immediateDuringRun'], true, 'a setImmediate ran before the run ended');
  assert.ok(Number(report['timersDuringRun']) > 0, 'a timer fired before the run ended');
});

test('nested runs share the budget: nodes of a sub-chain count against the run that called it', async () => {
  const engine = createEngine({ maxNodeExecutions: 5 });
  const three = (id: string, last: NodeSpec) =>
    chain(
      id,
      [{ id: 'a', type: 'fork' }, { id: 'b', type: 'fork' }, last],
      [
        ['a', 'Success', 'b'],
        ['b', 'Success', 'c'],
      ],
    );
  await engine.load(three('inner', { id: 'c', type: 'end' }));
  await engine.load(three('outer', { id: 'c', type: 'flow', configuration: { targetId: 'inner' } }));
  assert.equal((await engine.execute('inner', newMessage('x'))).outcome, 'success', 'three nodes fit');
  await assert.rejects(
    engine.execute('outer', newMessage('x')),
    tooLarge(/^the run of rule chain "outer" exceeded 5 node executions$/),
  );
  await engine.close();
});

test('a node whose outputs start more branches than maxFanOut fails the run', async () => {
  const engine = createEngine({ maxFanOut: 2 });
  const targets = ['a', 'b', 'c'];
  await engine.load(
    chain(
      'wide',
      [{ id: 'fork', type: 'fork' }, ...targets.map((id) => ({ id, type: 'end' }))],
      targets.map((id): [string, string, string] => ['fork', 'Success', id]),
    ),
  );
  await assert.rejects(
    engine.execute('wide', newMessage('x')),
    tooLarge(/^node "fork" of rule chain "wide" started 3 branches; the limit is 2$/),
  );
  await engine.close();
});

/** A node type `tick` that counts its calls and, at the first, hands the test a moment to act. */
function registerTick(registry: NodeRegistry, onFirst: () => void): { calls: number } {
  const counter = { calls: 0 };
  registry.register({
    type: 'tick',
    label: 'Tick',
    description: 'test node',
    category: 'test',
    relations: ['Success'],
    configSchema: z.object({}),
    create: () => ({
      process(message) {
        counter.calls += 1;
        if (counter.calls === 1) onFirst();
        return Promise.resolve([{ relation: 'Success', message }]);
      },
    }),
  });
  return counter;
}

const loop = chain('loop', [
  { id: 'for', type: 'for', configuration: { range: 'msg.items', do: 'body' } },
  { id: 'body', type: 'tick' },
]);

test('a for over 400,000 items stops within moments of an abort, and no iteration runs after it', async () => {
  const registry = createDefaultRegistry();
  const controller = new AbortController();
  let firstAt = 0;
  const ticks = registerTick(registry, () => {
    firstAt = performance.now();
    setTimeout(() => controller.abort(new AppError('timeout', 'the run did not finish within 50 ms')), 50);
  });
  // The range script handles 400,000 items: a busy machine needs more than the tests' usual 200 ms.
  const services = testServices({ scriptTimeoutMs: 10_000, scriptMemoryBytes: 64 << 20 });
  const engine = createEngine({ registry, services, maxNodeExecutions: 10_000_000 });
  await engine.load(loop);
  const items = new Array<number>(400_000).fill(0);
  await assert.rejects(engine.execute('loop', newMessage({ items }), { signal: controller.signal }), {
    message: 'the run did not finish within 50 ms',
  });
  const elapsedMs = performance.now() - firstAt;
  assert.ok(elapsedMs < 500, `the for went on for ${Math.round(elapsedMs)} ms`);
  const callsAtEnd = ticks.calls;
  assert.ok(callsAtEnd < items.length);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(ticks.calls, callsAtEnd, 'no iteration ran after the run ended');
  await engine.close();
});

test('the iterations of a for count against the budget', async () => {
  const registry = createDefaultRegistry();
  const ticks = registerTick(registry, () => undefined);
  const engine = createEngine({ registry, maxNodeExecutions: 1_000 });
  await engine.load(loop);
  await assert.rejects(
    engine.execute('loop', newMessage({ items: new Array<number>(600).fill(0) })),
    tooLarge(/^the run of rule chain "loop" exceeded 1000 node executions$/),
  );
  // Each iteration counts once itself and once for its body node.
  assert.ok(ticks.calls < 500, `${ticks.calls} iterations ran`);
  await engine.close();
});
