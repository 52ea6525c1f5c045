// cacheSet on one instance, cacheGet on another: in clustered mode the rule cache lives in Redis,
// under the deployment's key prefix, with its TTL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { chainDefinition } from '../fakes/builders.ts';
import {
  api,
  clusterSection,
  deployment,
  eventually,
  REDIS_URL,
  type Deployment,
  type Instance,
} from './instances.ts';

describe('clustered mode: the rule cache is shared through Redis', () => {
  let cluster: Deployment;
  let a: Instance;
  let b: Instance;
  let redis: Redis;

  before(async () => {
    cluster = await deployment((prefix) => `server:\n  host: 127.0.0.1\n${clusterSection(prefix)}`);
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    redis?.disconnect();
    await cluster?.close();
  });

  it('a value set through instance a is read through instance b, and expires with its TTL', async () => {
    const setter = chainDefinition('cacheWriter', [
      {
        id: 'set',
        type: 'cacheSet',
        configuration: {
          items: [
            { level: 'global', key: 'city', value: '${msg.city}', ttl: '1h' },
            { level: 'global', key: 'short', value: 'soon gone', ttl: '300ms' },
          ],
        },
      },
    ]);
    const getter = chainDefinition('cacheReader', [
      {
        id: 'get',
        type: 'cacheGet',
        configuration: { keys: [{ level: 'global', key: 'city' }], outputMode: 2 },
      },
    ]);
    for (const definition of [setter, getter]) {
      const created = await api(a, 'POST', '/api/v1/rules', definition);
      assert.equal(created.status, 201, JSON.stringify(created.json));
    }
    const written = await api(a, 'POST', '/api/v1/rules/cacheWriter/execute', { city: 'Lyon' });
    assert.equal(written.status, 200, JSON.stringify(written.json));
    await eventually(
      async () => (await api(b, 'GET', '/api/v1/rules/cacheReader')).status === 200,
      5000,
      'the reader chain on b',
    );
    const read = await api(b, 'POST', '/api/v1/rules/cacheReader/execute', {});
    assert.equal(read.status, 200, JSON.stringify(read.json));
    assert.deepEqual(read.json, { city: 'Lyon' });
    const ttl = await redis.pttl(`${cluster.prefix}rulecache:global:city`);
    assert.ok(ttl > 3_500_000 && ttl <= 3_600_000, `pttl ${ttl}`);
    await eventually(
      async () => (await redis.exists(`${cluster.prefix}rulecache:global:short`)) === 0,
      5000,
      'the 300ms key to expire',
    );
  });
});
