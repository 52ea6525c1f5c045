// What one instance does without Redis (nothing: no client loaded, no connection), and what a
// clustered instance reports when its Redis cannot be reached (/ready 503, writes refused).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { api, clusterSection, deployment, REDIS_URL, type Deployment } from './instances.ts';

const CLUSTER_CONFIG = join(import.meta.dirname, '..', '..', 'deploy', 'cluster-config.yaml');
const REPORTER = join(import.meta.dirname, 'fixtures', 'report-redis-client.mjs');

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('single and clustered modes', () => {
  let cluster: Deployment | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('without cluster.redis_url one instance runs as before: no Redis client loaded, /ready without Redis', async () => {
    cluster = await deployment(() => 'server:\n  host: 127.0.0.1\n');
    const single = await cluster.start('single', { nodeArgs: ['--import', REPORTER] });
    const ready = await api(single, 'GET', '/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json, {
      ready: true,
      instance: ready.json.instance,
      mode: 'single',
      checks: { database: 'ok', redis: 'not configured', disk: 'ok' },
    });
    const health = await fetch(`${single.url}/health`);
    assert.equal(await health.text(), 'OK');
    const created = await api(single, 'POST', '/api/v1/config/models/providers', {
      id: 'p',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    assert.equal(created.status, 201);
    assert.doesNotMatch(single.output(), /redis client loaded|Clustered mode/);
    assert.doesNotMatch(single.output(), /"instance":/);
    single.child.kill('SIGTERM');
    assert.equal(await single.exited, 0);
  });

  it('the same probe sees the Redis client of a clustered instance (the check above can fail)', async () => {
    cluster = await deployment((prefix) => `server:\n  host: 127.0.0.1\n${clusterSection(prefix)}`);
    const clustered = await cluster.start('probe', { nodeArgs: ['--import', REPORTER] });
    assert.match(clustered.output(), /redis client loaded/);
    clustered.child.kill('SIGTERM');
    assert.equal(await clustered.exited, 0);
  });

  it('a clustered instance whose Redis is unreachable starts, answers /ready 503 and refuses writes with 503', async () => {
    const port = await closedPort();
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\n${clusterSection(prefix, `redis://:hunter2secret@127.0.0.1:${port}`)}`,
    );
    const lonely = await cluster.start('lonely');
    const ready = await api(lonely, 'GET', '/ready');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.json, {
      ready: false,
      instance: 'lonely',
      mode: 'clustered',
      checks: { database: 'ok', redis: 'unreachable', disk: 'ok' },
    });
    assert.equal(await (await fetch(`${lonely.url}/health`)).text(), 'OK');
    const write = await api(lonely, 'POST', '/api/v1/config/models/providers', {
      id: 'p',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    assert.equal(write.status, 503);
    assert.deepEqual(write.json, { error: 'the cluster coordination service (Redis) is unreachable' });
    assert.match(lonely.output(), /redis connection failed/);
    assert.doesNotMatch(lonely.output(), /hunter2secret/);
    lonely.child.kill('SIGTERM');
    assert.equal(await lonely.exited, 0);
  });

  it('the cluster config that compose.yaml ships starts a clustered instance from its environment', async () => {
    const text = await readFile(CLUSTER_CONFIG, 'utf8');
    cluster = await deployment(() => text);
    const instance = await cluster.start('shipped', {
      env: {
        AGENT_SERVICE_HOST: '127.0.0.1',
        REDIS_URL,
        REDIS_KEY_PREFIX: cluster.prefix,
        JWT_SECRET: 'a-test-secret-that-is-long-enough-0123456789',
      },
    });
    const ready = await api(instance, 'GET', '/ready');
    assert.equal(ready.status, 200, JSON.stringify(ready.json));
    assert.deepEqual(ready.json.checks, { database: 'ok', redis: 'ok', disk: 'ok' });
    assert.equal(ready.json.instance, 'shipped');
    assert.equal((await api(instance, 'GET', '/api/v1/agents')).status, 401);
  });
});
