// A saved chain is compiled once: the build that checks it is the one put in service, and a save
// that fails after the check (an id in use) drops that build.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { ChainCatalog } from '../../src/chains/chain-catalog.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import { newMessage } from '../../src/engine/message.ts';
import { ChainFileStore } from '../../src/storage/chain-files.ts';
import { chainDefinition } from '../fakes/builders.ts';
import { createEngine } from '../engine/helpers.ts';

describe('saving a chain', () => {
  let dir: string;
  const built: string[] = [];
  const destroyed: string[] = [];
  const registry = createDefaultRegistry();
  registry.register({
    type: 'counted',
    label: 'Counted',
    description: 'counts its builds',
    category: 'test',
    relations: ['Success'],
    configSchema: z.object({ label: z.string() }),
    create(config) {
      built.push(config.label);
      return {
        process: (message) => {
          message.data = config.label;
          return Promise.resolve([{ relation: 'Success', message }]);
        },
        destroy: () => void destroyed.push(config.label),
      };
    },
  });
  const engine = createEngine({ registry });
  let catalog: ChainCatalog;
  const counted = (id: string, label: string) =>
    chainDefinition(id, [{ id: 'n', type: 'counted', configuration: { label } }]);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chain-save-'));
    catalog = new ChainCatalog(engine, new ChainFileStore(dir), () => ({
      ...chainDefinition('main', [{ id: 'e', type: 'end' }]),
    }));
    await catalog.init();
  });
  after(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('create and update each build the chain once, and that build serves', async () => {
    await catalog.create(counted('c1', 'first'), { kind: 'any' });
    assert.deepEqual(built, ['first']);
    assert.equal((await engine.execute('c1', newMessage('x'))).results[0]?.data, 'first');
    await catalog.update('c1', counted('c1', 'second'), { kind: 'any' });
    assert.deepEqual(built, ['first', 'second']);
    assert.equal((await engine.execute('c1', newMessage('x'))).results[0]?.data, 'second');
  });

  it('a save refused after the check (the id is in use) drops its build and keeps the chain serving', async () => {
    built.length = 0;
    destroyed.length = 0;
    await assert.rejects(catalog.create(counted('c1', 'third'), { kind: 'any' }), {
      kind: 'conflict',
      message: 'id "c1" is already used by a rule chain',
    });
    assert.deepEqual(built, ['third']);
    assert.deepEqual(destroyed, ['third']);
    assert.equal((await engine.execute('c1', newMessage('x'))).results[0]?.data, 'second');
  });
});
