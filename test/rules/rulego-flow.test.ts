// Facts from RuleGo's components/flow tests (flow_node_test) through the REST API with debugMode on:
// a sub-chain by id, its end relation kept only with extend, and an unknown target a Failure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';
import { outData, runLogged } from './rulego-harness.ts';

describe('RuleGo flow node', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    for (const definition of [
      chainDefinition('toTrue', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: 'return true;' } }]),
      chainDefinition('rule01', [
        {
          id: 's1',
          type: 'jsTransform',
          configuration: {
            jsScript: "metadata.sub = 'yes'; return {msg: {temperature: 35}, metadata, msgType};",
          },
        },
      ]),
    ]) {
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: definition });
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(() => t.close());

  const flow = (configuration: Record<string, unknown>) =>
    runLogged(
      t,
      [{ id: 'flow', type: 'flow', configuration }],
      [],
      { temperature: 60 },
      {
        msgType: 'ACTIVITY_EVENT2',
        query: { productType: 'test' },
      },
    );

  it('RuleTarget: Success with the sub-chain end as a {msg, err, nodeId} record, its metadata merged', async () => {
    const run = await flow({ targetId: 'rule01' });
    const log = run.node('flow');
    assert.deepEqual(log.relationTypes, ['Success']);
    const records = outData(log) as Array<{ msg: { data: string }; err: string; nodeId: string }>;
    assert.deepEqual(
      records.map((record) => [record.nodeId, record.err, record.msg.data]),
      [['s1', '', '{"temperature":35}']],
    );
    assert.equal(log.outMsgs[0]?.msg.metadata['sub'], 'yes');
    assert.equal(log.outMsgs[0]?.msg.metadata['productType'], 'test');
  });

  it('ToTrue: Success without extend, True with extend', async () => {
    assert.deepEqual((await flow({ targetId: 'toTrue', extend: false })).node('flow').relationTypes, [
      'Success',
    ]);
    const extended = (await flow({ targetId: 'toTrue', extend: true })).node('flow');
    assert.deepEqual(extended.relationTypes, ['True']);
    assert.deepEqual(outData(extended), { temperature: 60 });
  });

  it('NotFound: a Failure with an error, extend or not', async () => {
    for (const extend of [true, false]) {
      const log = (await flow({ targetId: 'notfound', extend })).node('flow');
      assert.deepEqual(log.relationTypes, ['Failure']);
      assert.equal(log.err, 'ruleChain id=notfound not found');
    }
  });
});
