// Chain endpoints in clustered mode: two real instances share one Redis and one PostgreSQL. http
// and ws endpoints answer on both; a schedule endpoint fires on one of them only (every second once,
// never twice), and when that holder is killed (-9, so it releases nothing) the other takes the
// schedule over. Each fire posts the instance's name (its own model name, `${INSTANCE_ID}` in the
// shared config) to a recorder.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { chainDefinition } from '../fakes/builders.ts';
import { api, clusterSection, deployment, eventually, type Deployment, type Instance } from './instances.ts';

interface Fire {
  instance: string;
  /** The fire's message time, in ms. */
  ts: number;
}

describe('clustered mode: chain endpoints', () => {
  let cluster: Deployment;
  let recorder: Server;
  let url = '';
  const fires: Fire[] = [];
  const instances = new Map<string, Instance>();

  before(async () => {
    recorder = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += String(chunk)));
      request.on('end', () => {
        fires.push(JSON.parse(body) as Fire);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/fire`;
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\n  shutdown_timeout_ms: 2000\n` +
        `engine:\n  rest_allow_private_network: true\n` +
        `models:\n  providers:\n    self:\n      base_url: http://127.0.0.1:9/v1\n      model: \${INSTANCE_ID}\n` +
        clusterSection(prefix),
    );
    for (const instance of await Promise.all([cluster.start('a'), cluster.start('b')]))
      instances.set(instance.name, instance);
  });
  after(async () => {
    await cluster?.close();
    await new Promise((resolve) => recorder?.close(resolve));
  });

  /** Fires per wall-clock second of their message time: a second fired twice is a duplicate. */
  const duplicates = (list: Fire[]): number[] => {
    const seconds = new Map<number, number>();
    for (const fire of list)
      seconds.set(Math.floor(fire.ts / 1000), (seconds.get(Math.floor(fire.ts / 1000)) ?? 0) + 1);
    return [...seconds].filter(([, count]) => count > 1).map(([second]) => second);
  };

  it('http and ws endpoints are served by every instance', async () => {
    const definition = chainDefinition('hello', [
      {
        id: 't',
        type: 'jsTransform',
        configuration: { jsScript: 'return {msg: {hello: metadata.name}, metadata, msgType};' },
      },
    ]);
    const created = await api(instances.get('a') as Instance, 'POST', '/api/v1/rules', {
      ...definition,
      metadata: {
        ...definition.metadata,
        endpoints: [
          { id: 'h', type: 'http', routers: [{ params: ['POST'], from: { path: '/hello/:name' } }] },
          { id: 'w', type: 'ws', routers: [{ from: { path: '/hello-ws/:name' } }] },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    for (const instance of instances.values()) {
      await eventually(
        async () => (await api(instance, 'POST', '/api/v1/endpoints/hello/ada', {})).status === 200,
        10_000,
        `the http endpoint on ${instance.name}`,
      );
      assert.deepEqual((await api(instance, 'POST', '/api/v1/endpoints/hello/ada', {})).json, {
        hello: 'ada',
      });
      const socket = new WebSocket(`${instance.url.replace('http:', 'ws:')}/api/v1/endpoints/hello-ws/bo`);
      const answer = await new Promise<string>((resolve, reject) => {
        socket.once('open', () => socket.send('{}'));
        socket.once('message', (data) => resolve(String(data as Buffer)));
        socket.once('error', reject);
      });
      socket.close();
      assert.deepEqual(JSON.parse(answer), { hello: 'bo' });
    }
  });

  it('fires on one instance only, and the other takes over when the holder is killed', async () => {
    const definition = chainDefinition('ticker', [
      {
        id: 'post',
        type: 'restApiCall',
        configuration: {
          restEndpointUrlPattern: url,
          requestMethod: 'POST',
          body: '{"instance": "${global.models.providers.self.model}", "ts": ${ts}}',
        },
      },
    ]);
    const created = await api(instances.get('a') as Instance, 'POST', '/api/v1/rules', {
      ...definition,
      metadata: {
        ...definition.metadata,
        endpoints: [{ id: 's1', type: 'schedule', routers: [{ from: { path: '* * * * * *' } }] }],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    // Both instances have the chain (so both started its endpoint and compete for the lease).
    await eventually(
      async () => (await api(instances.get('b') as Instance, 'GET', '/api/v1/rules/ticker')).status === 200,
      10_000,
      'the chain on b',
    );
    await eventually(async () => fires.length >= 5, 20_000, 'five fires');
    const holder = fires[0]?.instance as string;
    assert.ok(holder === 'a' || holder === 'b', JSON.stringify(fires));
    assert.deepEqual(
      fires.filter((fire) => fire.instance !== holder),
      [],
      'every fire on the holder',
    );
    assert.deepEqual(duplicates(fires), [], JSON.stringify(fires));

    const other = holder === 'a' ? 'b' : 'a';
    (instances.get(holder) as Instance).child.kill('SIGKILL');
    await (instances.get(holder) as Instance).exited;
    const killedAt = fires.length;
    // The lease (10 s) expires and the other instance takes the schedule over.
    const took = await eventually(
      async () => fires.slice(killedAt).filter((fire) => fire.instance === other).length >= 3,
      20_000,
      `fires on ${other} after ${holder} was killed`,
    );
    const firstTaken = fires.findIndex((fire, index) => index >= killedAt && fire.instance === other);
    assert.deepEqual(
      fires.slice(firstTaken).filter((fire) => fire.instance === holder),
      [],
      `nothing more from the killed holder (taken over in ${took} ms)`,
    );
    assert.deepEqual(duplicates(fires), [], JSON.stringify(fires));
  });
});
