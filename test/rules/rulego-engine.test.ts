// Facts from RuleGo's engine tests (dynamic_node_test, engine_test) through the REST API: a chain
// file as RuleGo writes it loads (root, an empty connection, vars), `${vars.x}` is replaced in a
// script at load, and the node logs what RuleGo asserts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunLog } from '../../src/engine/run-log.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

describe('RuleGo engine behaviour over REST', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('the fahrenheit chain of dynamic_node_test: ${vars.appKey} in the script, {"appKey":"123456","temperature":140}', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ruleChain: {
          id: 'fahrenheit',
          name: '华氏温度',
          root: true,
          debugMode: false,
          configuration: { vars: { appKey: '123456' } },
        },
        metadata: {
          firstNodeIndex: 0,
          nodes: [
            {
              id: 's2',
              type: 'jsTransform',
              name: '摄氏温度转华氏温度',
              debugMode: true,
              configuration: {
                jsScript:
                  "var newMsg={'appKey':'${vars.appKey}','temperature': msg.temperature*(9/5)+32};\n return {'msg':newMsg,'metadata':metadata,'msgType':msgType};",
              },
            },
          ],
          connections: [{}],
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const run = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/fahrenheit/execute/ACTIVITY_EVENT',
      query: { productType: 'test' },
      payload: { temperature: 60 },
    });
    assert.equal(run.statusCode, 200, run.body);
    assert.equal(run.body, '{"appKey":"123456","temperature":140}');
    const runs = await t.app.inject({ method: 'GET', url: '/api/v1/logs/runs?chainId=fahrenheit' });
    const [latest] = (runs.json() as { data: RunLog[] }).data;
    const log = latest?.logs[0];
    assert.equal(log?.nodeId, 's2');
    assert.deepEqual(log?.relationTypes, ['Success']);
    assert.equal(log?.outMsgs[0]?.msg.type, 'ACTIVITY_EVENT');
    assert.equal(log?.outMsgs[0]?.msg.metadata['productType'], 'test');
  });
});
