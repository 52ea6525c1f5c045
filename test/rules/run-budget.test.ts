// A run's work is bounded over HTTP too: a chain that would fan out without end, or a for over many
// items, is a 413 naming the limit, and the server keeps answering meanwhile.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('the work of one execute is bounded', () => {
  it('a fork into two flows back to its own chain is a 413 naming the limit, and /health answers while it runs', () => {
    const fixture = new URL('./fixtures/fork-bomb-over-http.ts', import.meta.url);
    const child = spawnSync(process.execPath, ['--import', 'tsx', fixture.pathname], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(child.signal, null, 'the request never ended: the child was killed after 30 s');
    assert.equal(child.status, 0, child.stderr);
    const report = JSON.parse(child.stdout) as Record<string, unknown>;
    assert.equal(report['status'], 413);
    assert.deepEqual(report['body'], {
      error: 'the run of rule chain "bomb" exceeded 10000 node executions',
    });
    // Bounded by node executions, not by time: a run that never ended is the 30 s kill above (how
    // fast it ends on an idle machine is bench material, not a test's).
    assert.equal(report['health'], 'OK');
    assert.equal(report['healthBeforeExecuteEnded'], true, 'GET /health was answered during the run');
  });

  describe('in this process', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());

    it('a for over 100,000 items is a 413 naming the budget', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/rules',
        payload: {
          ruleChain: { id: 'many', name: 'many' },
          metadata: {
            nodes: [
              { id: 'loop', type: 'for', configuration: { range: '1..100000', do: 'body' } },
              { id: 'body', type: 'fork' },
            ],
            connections: [],
          },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const response = await t.app.inject({ method: 'POST', url: '/api/v1/rules/many/execute', payload: {} });
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), {
        error: 'the run of rule chain "many" exceeded 10000 node executions',
      });
    });
  });
});
