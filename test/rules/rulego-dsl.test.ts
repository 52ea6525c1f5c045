// RuleGo chains through the front door: loose DSL forms load, and the debug run log shows the
// relation each expression node took.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunLog } from '../../src/engine/run-log.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('RuleGo chains over REST', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('a chain with RuleGo loose forms loads and routes by expr-lang, logged per node', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ruleChain: {
          id: 'rulego-loose',
          name: 'loose',
          debugMode: 'true',
          configuration: { vars: { limit: 50 } },
        },
        metadata: {
          firstNodeIndex: '0',
          nodes: [
            { type: 'switch', configuration: { cases: [{ case: 'msg.t > ${vars.limit}', then: 'High' }] } },
            { type: 'exprFilter', configuration: { expr: 'msg.t.x == 1' } },
            { id: 'end', type: 'end', configuration: null },
          ],
          connections: [
            { fromId: 'node0', toId: 'node1', type: 'High' },
            { fromId: 'node0', toId: 'end', type: 'Default' },
          ],
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);

    const low = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/rulego-loose/execute',
      payload: { t: 10 },
    });
    assert.equal(low.statusCode, 200, low.body);
    const high = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/rulego-loose/execute',
      payload: { t: 60 },
    });
    assert.equal(high.statusCode, 400, high.body);

    const runs = await t.app.inject({ method: 'GET', url: '/api/v1/logs/runs?chainId=rulego-loose' });
    const [latest, earlier] = (runs.json() as { data: RunLog[] }).data;
    const relations = (run: RunLog | undefined) => run?.logs.map((log) => [log.nodeId, log.relationTypes]);
    assert.deepEqual(relations(earlier), [
      ['node0', ['Default']],
      ['end', ['Success']],
    ]);
    // msg.t is a number: member access on it fails, as in RuleGo, so exprFilter ends on Failure.
    assert.deepEqual(relations(latest), [
      ['node0', ['High']],
      ['node1', ['Failure']],
    ]);
    assert.ok(latest?.logs[1]?.err);
  });
});
