// Facts from RuleGo's cache_node_test (components/external) through the REST API with debugMode:
// chain and global levels, the three output modes, prefixes, deletes, misses and TTLs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRuleCache, parseTtl } from '../../src/engine/cache.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { createChain, outData, runLogged } from './rulego-harness.ts';

const set = (id: string, items: unknown[]) => ({ id, type: 'cacheSet', configuration: { items } });
const get = (id: string, keys: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  type: 'cacheGet',
  configuration: { keys, ...extra },
});

describe('RuleGo cache nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('set at chain and global level, then read in the three output modes, by prefix, and delete', async () => {
    const run = await runLogged(
      t,
      [
        set('set', [
          { level: 'chain', key: 'testKey', value: 'testValue', ttl: '1h' },
          { level: 'chain', key: 'testKey2', value: 'testValue2', ttl: '1h' },
          { level: 'global', key: 'globalTestKey', value: 'globalTestValue', ttl: '1h' },
        ]),
        get('g0', [{ level: 'global', key: 'globalTestKey' }], { outputMode: 0 }),
        get('gChain', [{ level: 'chain', key: 'globalTestKey' }], { outputMode: 0 }),
        get('m0', [{ level: 'chain', key: 'testKey' }], { outputMode: 0 }),
        get('m1', [{ level: 'chain', key: 'testKey' }], { outputMode: 1 }),
        get('m2', [{ level: 'chain', key: 'testKey' }], { outputMode: 2 }),
        get('prefix', [{ level: 'chain', key: 'test*' }], { outputMode: 2 }),
        { id: 'del', type: 'cacheDelete', configuration: { keys: [{ level: 'chain', key: 'testKey' }] } },
        get('after', [{ level: 'chain', key: 'testKey' }], { outputMode: 2 }),
      ],
      [
        ['set', 'Success', 'g0'],
        ['g0', 'Success', 'gChain'],
        ['gChain', 'Success', 'm0'],
        ['m0', 'Success', 'm1'],
        ['m1', 'Success', 'm2'],
        ['m2', 'Success', 'prefix'],
        ['prefix', 'Success', 'del'],
        ['del', 'Success', 'after'],
      ],
      { oldKey: 'oldValue' },
    );
    assert.equal(run.node('g0').outMsgs[0]?.msg.metadata['globalTestKey'], 'globalTestValue');
    assert.equal(run.node('gChain').outMsgs[0]?.msg.metadata['globalTestKey'], '');
    assert.equal(run.node('m0').outMsgs[0]?.msg.metadata['testKey'], 'testValue');
    assert.equal(run.node('m1').outMsgs[0]?.msg.data, '{"oldKey":"oldValue","testKey":"testValue"}');
    assert.equal(run.node('m2').outMsgs[0]?.msg.data, '{"testKey":"testValue"}');
    assert.equal(run.node('prefix').outMsgs[0]?.msg.data, '{"testKey":"testValue","testKey2":"testValue2"}');
    assert.deepEqual(run.node('del').relationTypes, ['Success']);
    const missing = run.node('after');
    assert.deepEqual(missing.relationTypes, ['Failure']);
    assert.equal(missing.err, 'cache: key is missing');
  });

  it('a miss: Success in modes 0 and 1 (null merged), Failure with whenKeyNotFound failure', async () => {
    const run = await runLogged(
      t,
      [
        get('m0', [{ key: 'missingKey0' }], { outputMode: 0 }),
        get('m1', [{ key: 'missingKey1' }], { outputMode: 1 }),
        get('f0', [{ key: 'missingKeyFailure0' }], { outputMode: 0, whenKeyNotFound: 'failure' }),
        get('s2', [{ key: 'missingKey2' }], { outputMode: 2, whenKeyNotFound: 'success' }),
      ],
      [
        ['m0', 'Success', 'm1'],
        ['m1', 'Success', 'f0'],
        ['f0', 'Failure', 's2'],
      ],
      { original: 'data' },
    );
    assert.deepEqual(run.node('m0').relationTypes, ['Success']);
    assert.equal(run.node('m0').outMsgs[0]?.msg.metadata['missingKey0'], '');
    assert.equal(run.node('m1').outMsgs[0]?.msg.data, '{"missingKey1":null,"original":"data"}');
    assert.deepEqual(run.node('f0').relationTypes, ['Failure']);
    assert.deepEqual(outData(run.node('s2')), { missingKey2: null });
  });

  it("keys and values from templates keep the value type; chain keys are not another chain's", async () => {
    const first = await runLogged(
      t,
      [
        set('set', [{ key: 'user:${metadata.id}', value: '${msg.profile}' }]),
        get('get', [{ key: 'user:${id}' }]),
      ],
      [['set', 'Success', 'get']],
      { profile: { age: 7 } },
      { query: { id: '42' } },
    );
    assert.deepEqual(outData(first.node('get')), { 'user:42': { age: 7 } });
    const other = await runLogged(t, [get('get', [{ key: 'user:42' }])], [], { a: 1 });
    assert.equal(other.node('get').err, 'cache: key is missing');
  });

  it('a bad TTL is refused at load; TTLs expire entries', async () => {
    const bad = await createChain(t, [set('set', [{ key: 'k', value: 'v', ttl: 'soon' }])]);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /invalid duration/);
    assert.equal(parseTtl('1h30m'), 5_400_000);
    assert.equal(parseTtl('250ms'), 250);
    assert.equal(parseTtl(''), undefined);
    const cache = new MemoryRuleCache();
    await cache.set('k', 1, 30);
    assert.equal(await cache.get('k'), 1);
    const deadline = Date.now() + 2000;
    while ((await cache.get('k')) !== undefined && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(await cache.get('k'), undefined);
  });
});
