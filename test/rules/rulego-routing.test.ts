// Facts from RuleGo's components/filter, components/common and components/action tests, through the
// REST API with debugMode on: the relation each node logs, the data it sends on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { outData, runLogged } from './rulego-harness.ts';

describe('RuleGo routing and iteration', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('jsSwitch logs every relation its script returns; one with no connection goes down Default', async () => {
    const run = await runLogged(
      t,
      [
        { id: 's', type: 'jsSwitch', configuration: { jsScript: "return ['one', 'two'];" } },
        { id: 'a', type: 'exprTransform', configuration: { expr: '"one"' } },
        { id: 'd', type: 'exprTransform', configuration: { expr: '"default"' } },
      ],
      [
        ['s', 'one', 'a'],
        ['s', 'Default', 'd'],
      ],
      { x: 1 },
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    const switched = run.node('s');
    assert.deepEqual(switched.relationTypes, ['one', 'two']);
    assert.deepEqual(
      switched.outMsgs.map((out) => out.relationType),
      ['one', 'two'],
    );
    assert.deepEqual(
      run.logs
        .filter((log) => log.nodeId !== 's')
        .map((log) => outData(log))
        .sort(),
      ['default', 'one'],
    );
  });

  it("jsSwitch routes on the data type, as RuleGo's test returning [String(dataType)]", async () => {
    const run = await runLogged(
      t,
      [{ id: 's', type: 'jsSwitch', configuration: { jsScript: 'return [String(dataType)];' } }],
      [],
      { x: 1 },
    );
    assert.deepEqual(run.relations(), [['s', ['JSON']]]);
  });

  it('msgTypeSwitch logs the message type as its relation, also when it goes down Default', async () => {
    const nodes = [
      { id: 's', type: 'msgTypeSwitch' },
      { id: 'known', type: 'exprTransform', configuration: { expr: '"known"' } },
      { id: 'other', type: 'exprTransform', configuration: { expr: '"other"' } },
    ];
    const links: Array<[string, string, string]> = [
      ['s', 'TEST_MSG_TYPE1', 'known'],
      ['s', 'Default', 'other'],
    ];
    const known = await runLogged(t, nodes, links, {}, { msgType: 'TEST_MSG_TYPE1' });
    assert.deepEqual(known.relations(), [
      ['s', ['TEST_MSG_TYPE1']],
      ['known', ['Success']],
    ]);
    const unknown = await runLogged(t, nodes, links, {}, { msgType: 'TEST_MSG_TYPE3' });
    assert.deepEqual(unknown.relations(), [
      ['s', ['TEST_MSG_TYPE3']],
      ['other', ['Success']],
    ]);
    assert.equal(unknown.response.body, 'other');
  });

  it("for keeps the data type of the loop message for each item, as RuleGo's SetData", async () => {
    const run = await runLogged(
      t,
      [
        { id: 'loop', type: 'for', configuration: { range: 'msg.items', do: 'body', mode: 1 } },
        {
          id: 'body',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {seen: msg, type: dataType}, metadata, msgType};' },
        },
      ],
      [],
      { items: ['aa', { b: 1 }, 3] },
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    const bodies = run.logs.filter((log) => log.nodeId === 'body');
    assert.deepEqual(
      bodies.map((log) => [log.inMsg.dataType, log.inMsg.data, log.inMsg.metadata['_loopItem']]),
      [
        ['JSON', 'aa', 'aa'],
        ['JSON', '{"b":1}', '{"b":1}'],
        ['JSON', '3', '3'],
      ],
    );
    assert.deepEqual(outData(run.node('loop')), [
      { seen: 'aa', type: 'JSON' },
      { seen: { b: 1 }, type: 'JSON' },
      { seen: 3, type: 'JSON' },
    ]);
  });

  it('delay written as 0 is no delay configured, a Failure as in RuleGo', async () => {
    const run = await runLogged(t, [{ id: 'd', type: 'delay', configuration: { delayMs: '0' } }], [], {});
    assert.equal(run.response.statusCode, 400);
    assert.deepEqual(run.response.json(), { error: 'no delay time configured' });
    assert.deepEqual(run.relations(), [['d', ['Failure']]]);
  });
});
