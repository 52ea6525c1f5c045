// A client that leaves an execute before the chain ends stops the run: no node after the current
// hop runs.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../src/testing/app-harness.ts';

describe('execute and a client that goes away', () => {
  let t: TestApp;
  let hits = 0;
  const target = createServer((request, response) => {
    hits += 1;
    request.resume();
    response.end('{}');
  });
  before(async () => {
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    t = await createTestApp({ listen: true });
  });
  after(async () => {
    await t.close();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  it('stops the run before its next hop', async () => {
    const { port } = target.address() as AddressInfo;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ruleChain: { id: 'slow-then-call', name: 'slow' },
        metadata: {
          nodes: [
            { id: 'wait', type: 'delay', configuration: { delayMs: 400 } },
            {
              id: 'call',
              type: 'restApiCall',
              configuration: {
                restEndpointUrlPattern: `http://127.0.0.1:${port}/hook`,
                requestMethod: 'POST',
              },
            },
          ],
          connections: [{ fromId: 'wait', toId: 'call', type: 'Success' }],
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);

    // Control: a run the client waits for reaches the call.
    const whole = await fetch(`${t.url}/api/v1/rules/slow-then-call/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(whole.status, 200, await whole.text());
    assert.equal(hits, 1);

    const controller = new AbortController();
    const pending = fetch(`${t.url}/api/v1/rules/slow-then-call/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: controller.signal,
    }).catch(() => undefined);
    setTimeout(() => controller.abort(), 100);
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(hits, 1, 'the node after the delay did not run');
  });
});
