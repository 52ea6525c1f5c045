// Sub-agents nested fifteen levels deep: the turn answers and Node prints no
// MaxListenersExceededWarning (each nested run holds at most one abort listener, released at its end).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const LEVELS = 15;

describe('nested sub-agents', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    for (let level = 0; level <= LEVELS; level += 1) {
      const tools =
        level < LEVELS ? [{ type: 'agent' as const, targetId: `level-${level + 1}`, name: 'ask' }] : [];
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        payload: agentDefinition(`level-${level}`, { tools }),
      });
      assert.equal(response.statusCode, 201, response.body);
    }
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it(`a turn through ${LEVELS} levels of sub-agents prints no MaxListenersExceededWarning`, async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let level = 0; level < LEVELS; level += 1)
        upstream.script({ toolCalls: [{ name: 'ask', arguments: { input: `go ${level}` } }] });
      upstream.script({ text: 'bottom' });
      for (let level = 0; level < LEVELS; level += 1) upstream.script({ text: `up ${level}` });
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        payload: { model: 'level-0', messages: [{ role: 'user', content: 'dig' }] },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().choices[0].message.content, `up ${LEVELS - 1}`);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((w) => w.message),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
