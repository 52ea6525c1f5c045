// A client that leaves an execute before the chain ends stops the run: no node after the current
// hop runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('execute and a client that goes away', () => {
  let t: TestApp;
  let hits = 0;
  before(async () => {
    t = await createTestApp({ listen: true });
    // A node with an effect the test can see, standing for a call to the outside world.
    t.services.registry.register({
      type: 'hit',
      label: 'Hit',
      description: 'test node: counts the messages it sees',
      category: 'test',
      relations: ['Success'],
      configSchema: z.object({}),
      create: () => ({
        process(message) {
          hits += 1;
          return Promise.resolve([{ relation: 'Success', message }]);
        },
      }),
    });
  });
  after(() => t.close());

  it('stops the run before its next hop', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ruleChain: { id: 'slow-then-call', name: 'slow' },
        metadata: {
          nodes: [
            { id: 'wait', type: 'delay', configuration: { delayMs: 400 } },
            { id: 'call', type: 'hit' },
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
