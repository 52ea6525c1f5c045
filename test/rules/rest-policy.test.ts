// The engine.rest_* keys of config.yaml reach restApiCall: loopback is refused by default, allowed
// when the config says so.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

describe('restApiCall address policy from the config', () => {
  let server: Server;
  let url = '';
  let hits = 0;
  before(async () => {
    server = createServer((_request, response) => {
      hits += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function run(engine: Record<string, unknown>) {
    const t = await createTestApp({ config: { engine } });
    try {
      const chain = chainDefinition('caller', [
        {
          id: 'call',
          type: 'restApiCall',
          configuration: { restEndpointUrlPattern: url, requestMethod: 'GET' },
        },
      ]);
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain });
      assert.equal(created.statusCode, 201, created.body);
      return await t.app.inject({ method: 'POST', url: '/api/v1/rules/caller/execute', payload: {} });
    } finally {
      await t.close();
    }
  }

  it('refuses loopback by default and sends nothing', async () => {
    const before = hits;
    const response = await run({});
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /refusing to call 127\.0\.0\.1/);
    assert.equal(hits, before);
  });

  it('reaches it with engine.rest_allow_private_network or engine.rest_allowed_hosts', async () => {
    for (const engine of [
      { rest_allow_private_network: true },
      { rest_allowed_hosts: [new URL(url).host] },
    ]) {
      const before = hits;
      const response = await run(engine);
      assert.equal(response.statusCode, 200, `${JSON.stringify(engine)}: ${response.body}`);
      assert.equal(hits, before + 1);
    }
  });
});
