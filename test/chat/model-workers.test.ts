// engine.model_workers: the same answers whether model calls run on the main thread (0) or on
// worker threads, and a client that goes away cancels the upstream call either way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

for (const workers of [0, 2]) {
  describe(`chat with engine.model_workers: ${workers}`, () => {
    let upstream: FakeUpstream;
    let t: TestApp;
    before(async () => {
      upstream = await startFakeUpstream({ reply: `answered with ${workers} workers` });
      t = await createTestApp({
        listen: true,
        config: {
          engine: { model_workers: workers },
          models: upstream.modelsConfig(),
        },
      });
    });
    after(async () => {
      await t.close();
      await upstream.close();
    });

    it('answers through the configured provider', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        payload: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { choices: Array<{ message: { content: string } }> };
      assert.equal(body.choices[0]?.message.content, `answered with ${workers} workers`);
      assert.equal(upstream.requestCount, 1);
    });

    it('a client that disconnects cancels the upstream call', async () => {
      upstream.setMode('hang');
      try {
        const seen = upstream.clientAborts;
        const before = upstream.requestCount;
        const controller = new AbortController();
        const request = fetch(`${t.url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hi' }], stream: true }),
          signal: controller.signal,
        }).then((response) => response.text());
        while (upstream.requestCount === before) await new Promise((resolve) => setTimeout(resolve, 5));
        controller.abort();
        await assert.rejects(request);
        await Promise.race([
          upstream.waitForClientAbort(seen),
          new Promise((_resolve, reject) =>
            setTimeout(() => reject(new Error('upstream call not cancelled')), 3000),
          ),
        ]);
      } finally {
        upstream.setMode('ok');
      }
    });
  });
}
