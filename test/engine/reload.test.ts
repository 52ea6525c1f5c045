import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { AppError } from '../../src/core/errors.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine, deferred, registerProbe } from './helpers.ts';

function version(label: string, wait: boolean) {
  return chain(
    'c1',
    [
      { id: 'gate', type: 'probe', configuration: { label, wait } },
      {
        id: 'stamp',
        type: 'jsTransform',
        configuration: { jsScript: `return {msg: ${JSON.stringify(label)}, metadata, msgType};` },
      },
      { id: 'e', type: 'end' },
    ],
    [
      ['gate', 'Success', 'stamp'],
      ['stamp', 'Success', 'e'],
    ],
  );
}

test('a run in flight finishes on the old chain while new runs use the new one', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(version('v1', true));
  const inFlight = engine.execute('c1', newMessage('x'));
  await engine.load(version('v2', false));
  const fresh = await engine.execute('c1', newMessage('x'));
  assert.equal(fresh.results[0]?.data, 'v2');
  assert.deepEqual(probes.destroyed, [], 'the old chain stays alive while its run is in flight');

  probes.gate.resolve();
  const old = await inFlight;
  assert.equal(old.results[0]?.data, 'v1');
  assert.deepEqual(probes.destroyed, ['v1'], 'the old chain is destroyed once its last run ends');
  await engine.close();
  assert.deepEqual(probes.destroyed, ['v1', 'v2']);
});

test('a broken reload throws and leaves the old chain serving', async () => {
  const registry = createDefaultRegistry();
  const probes = registerProbe(registry);
  const engine = createEngine({ registry });
  await engine.load(version('v1', false));
  const broken = version('v2', false);
  broken.metadata.nodes[1] = { id: 'stamp', type: 'jsTransform', configuration: { jsScript: 'return {' } };
  await assert.rejects(engine.load(broken), /^AppError: rule chain "c1": node "stamp": SyntaxError: /);
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.results[0]?.data, 'v1');
  // The half-built v2 was destroyed: its probe node was created before the broken script.
  assert.deepEqual(probes.destroyed, ['v2']);
  await engine.close();
});

test('unload takes a chain out of service', async () => {
  const engine = createEngine();
  await engine.load(chain('a', [{ id: 'e', type: 'end' }]));
  await engine.load(chain('b', [{ id: 'e', type: 'end' }]));
  assert.deepEqual(engine.loadedIds().sort(), ['a', 'b']);
  assert.equal(await engine.unload('a'), true);
  assert.equal(await engine.unload('a'), false);
  assert.equal(engine.isLoaded('a'), false);
  assert.deepEqual(engine.loadedIds(), ['b']);
  await assert.rejects(engine.execute('a', newMessage('x')), { message: 'rule chain "a" is not loaded' });
  await engine.close();
});

test('a disabled chain is validated but not runnable, and replaces a loaded version', async () => {
  const engine = createEngine();
  await engine.load(chain('c1', [{ id: 'e', type: 'end' }]));
  await engine.load(chain('c1', [{ id: 'e', type: 'end' }], [], { disabled: true }));
  assert.equal(engine.isLoaded('c1'), false);
  await assert.rejects(engine.execute('c1', newMessage('x')), (error: unknown) => {
    return (
      error instanceof AppError &&
      error.kind === 'not-found' &&
      error.message === 'rule chain "c1" is disabled'
    );
  });
  await assert.rejects(
    engine.load(chain('c1', [{ id: 'e', type: 'nope' }], [], { disabled: true })),
    /unknown node type "nope"/,
  );
  await engine.load(chain('c1', [{ id: 'e', type: 'end' }]));
  assert.equal((await engine.execute('c1', newMessage('back'))).results[0]?.data, 'back');
  await engine.close();
});

test('a slower earlier load does not overwrite a later one', async () => {
  const registry = createDefaultRegistry();
  const release = deferred();
  registry.register({
    type: 'slowBuild',
    label: 'slow',
    description: 'takes a while to create',
    category: 'test',
    relations: ['Success'],
    configSchema: z.object({}),
    create: async () => {
      await release.promise;
      return { process: (message) => Promise.resolve([{ relation: 'Success', message }]) };
    },
  });
  const engine = createEngine({ registry });
  const older = engine.load(chain('c1', [{ id: 'old', type: 'slowBuild' }]));
  await engine.load(chain('c1', [{ id: 'new', type: 'end' }]));
  release.resolve();
  await older;
  const { events, onEvent } = {
    events: [] as string[],
    onEvent: (event: { type: string; nodeId?: string }) => events.push(event.nodeId ?? ''),
  };
  await engine.execute('c1', newMessage('x'), { onEvent });
  assert.deepEqual(events.filter(Boolean), ['new', 'new']);
  await engine.close();
});

test('a closed engine refuses to run or load', async () => {
  const engine = createEngine();
  await engine.load(chain('c1', [{ id: 'e', type: 'end' }]));
  await engine.close();
  await assert.rejects(engine.execute('c1', newMessage('x')), { message: 'rule engine is closed' });
  await assert.rejects(engine.load(chain('c1', [{ id: 'e', type: 'end' }])), {
    message: 'rule engine is closed',
  });
});

test('registering a node type twice is a conflict', () => {
  const registry = createDefaultRegistry();
  const fork = registry.get('fork') ?? assert.fail('fork missing');
  assert.throws(() => registry.register(fork), {
    kind: 'conflict',
    message: 'node type "fork" is already registered',
  });
});
