// Facts from RuleGo's components/action (log), components/common (fork, join, groupAction) and
// engine/fork_direct_join tests, through the REST API with debugMode on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import type { NodeSpec } from '../fakes/builders.ts';
import { outData, runLogged } from './rulego-harness.ts';

const query = { productType: 'test' };
/** A jsTransform standing in for RuleGo's `functions` test nodes: sets data and one metadata key. */
const setter = (id: string, data: string, key: string, dataType = 'JSON'): NodeSpec => ({
  id,
  type: 'jsTransform',
  configuration: {
    jsScript: `metadata['${key}'] = 'set'; return {msg: ${JSON.stringify(data)}, metadata, msgType, dataType: '${dataType}'};`,
  },
});
const failing: NodeSpec = {
  id: 'node3',
  type: 'jsTransform',
  configuration: { jsScript: "throw new Error('test error');" },
};

describe('RuleGo action and common nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('log: the default script passes the message on; return true is "return the value is not a string"', async () => {
    const script =
      "return 'Incoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";
    for (const payload of ['AA', { name: 'lala' }]) {
      const run = await runLogged(
        t,
        [{ id: 'l', type: 'log', configuration: { jsScript: script } }],
        [],
        payload,
        { query },
      );
      const log = run.node('l');
      assert.deepEqual(log.relationTypes, ['Success']);
      assert.equal(log.outMsgs[0]?.msg.metadata['productType'], 'test');
      assert.deepEqual(outData(log), payload);
    }
    const notString = await runLogged(
      t,
      [{ id: 'l', type: 'log', configuration: { jsScript: 'return true' } }],
      [],
      'AA',
    );
    assert.deepEqual(notString.node('l').relationTypes, ['Failure']);
    assert.equal(notString.node('l').err, 'return the value is not a string');
    const undefinedName = await runLogged(
      t,
      [{ id: 'l', type: 'log', configuration: { jsScript: 'return a' } }],
      [],
      'AA',
    );
    assert.deepEqual(undefinedName.node('l').relationTypes, ['Failure']);
    assert.ok(undefinedName.node('l').err);
  });

  it('fork then join with mergeToMap: the metadata of every branch is merged (TestForkJoinWithForkNode)', async () => {
    const meta = (id: string, key: string): NodeSpec => ({
      id,
      type: 'jsTransform',
      configuration: {
        jsScript: `metadata.${key}="${key}"\nreturn {'msg':msg,'metadata':metadata,'msgType':msgType,'dataType':dataType};`,
      },
    });
    const run = await runLogged(
      t,
      [
        { id: 'node_20', type: 'fork' },
        meta('node_2', 'a'),
        meta('node_3', 'b'),
        meta('node_12', 'c'),
        { id: 'node_5', type: 'join', configuration: { mergeToMap: true, timeout: 5 } },
      ],
      [
        ['node_20', 'Success', 'node_2'],
        ['node_20', 'Success', 'node_3'],
        ['node_2', 'Success', 'node_12'],
        ['node_12', 'Success', 'node_5'],
        ['node_3', 'Success', 'node_5'],
      ],
      {},
      { msgType: 'TEST_MSG_TYPE' },
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    const join = run.node('node_5');
    assert.deepEqual(join.relationTypes, ['Success']);
    const metadata = join.outMsgs[0]?.msg.metadata ?? {};
    assert.deepEqual([metadata['a'], metadata['b'], metadata['c']], ['a', 'b', 'c']);
    assert.deepEqual(outData(join), {});
  });

  it('join mergeToMap: objects merged with keys sorted, other data under the node id (JoinNode MergeToMap)', async () => {
    const run = await runLogged(
      t,
      [
        { id: 'fork', type: 'fork' },
        setter('node1', '{"b": 2, "a": 1}', 'x1'),
        setter('node2', '{"c": 3}', 'x2'),
        setter('node3', 'not json', 'x3', 'TEXT'),
        { id: 'join', type: 'join', configuration: { mergeToMap: true } },
      ],
      [
        ['fork', 'Success', 'node1'],
        ['fork', 'Success', 'node2'],
        ['fork', 'Success', 'node3'],
        ['node1', 'Success', 'join'],
        ['node2', 'Success', 'join'],
        ['node3', 'Success', 'join'],
      ],
      { temperature: 41, humidity: 90 },
      { query },
    );
    const join = run.node('join');
    assert.deepEqual(join.relationTypes, ['Success']);
    const message = join.outMsgs[0]?.msg;
    assert.equal(message?.dataType, 'JSON');
    assert.equal(message?.data, '{"a":1,"b":2,"c":3,"node3":"not json"}');
    assert.deepEqual(
      [
        message?.metadata['x1'],
        message?.metadata['x2'],
        message?.metadata['x3'],
        message?.metadata['productType'],
      ],
      ['set', 'set', 'set', 'test'],
    );
  });

  it('groupAction: records in nodeIds order, without metadata; Success once matchNum match', async () => {
    const nodes = [
      setter('node1', '{"addValue":"addFromTest1"}', 'test1'),
      setter('node2', '{"addValue":"addFromTest2"}', 'test2'),
      failing,
    ];
    const group = async (configuration: Record<string, unknown>) => {
      const run = await runLogged(
        t,
        [{ id: 'g', type: 'groupAction', configuration }, ...nodes],
        [],
        { temperature: 41, humidity: 90 },
        { query, msgType: 'ACTIVITY_EVENT1' },
      );
      return run.node('g');
    };
    const both = await group({ matchNum: 2, nodeIds: 'node1,node2' });
    assert.deepEqual(both.relationTypes, ['Success']);
    const records = outData(both) as Array<{ msg: Record<string, unknown>; err: string; nodeId: string }>;
    assert.deepEqual(
      records.map((record) => [record.nodeId, record.err, record.msg['data'], record.msg['metadata']]),
      [
        ['node1', '', '{"addValue":"addFromTest1"}', {}],
        ['node2', '', '{"addValue":"addFromTest2"}', {}],
      ],
    );
    const metadata = both.outMsgs[0]?.msg.metadata ?? {};
    assert.deepEqual([metadata['test1'], metadata['test2'], metadata['productType']], ['set', 'set', 'test']);

    const all = await group({ nodeIds: ['node1', 'node2'] });
    assert.deepEqual(all.relationTypes, ['Success']);
    assert.equal((outData(all) as unknown[]).length, 2);

    const withFailure = await group({ matchNum: 3, nodeIds: 'node1,node2,node3' });
    assert.deepEqual(withFailure.relationTypes, ['Failure']);
    const failedRecords = outData(withFailure) as Array<{ err: string; nodeId: string }>;
    assert.deepEqual(
      failedRecords.map((record) => record.nodeId),
      ['node1', 'node2', 'node3'],
    );
    assert.match(failedRecords[2]?.err ?? '', /test error/);

    const one = await group({ matchNum: 1, nodeIds: 'node3,node1' });
    assert.deepEqual(one.relationTypes, ['Success']);
  });

  it('groupAction mergeToMap: objects merged, text under the node id (MergeToMap True)', async () => {
    const run = await runLogged(
      t,
      [
        {
          id: 'g',
          type: 'groupAction',
          configuration: { matchNum: 3, nodeIds: 'node1,node2,node3', mergeToMap: true },
        },
        setter('node1', '{"b": 2, "a": 1}', 'k1'),
        setter('node2', '{"c": 3}', 'k2'),
        setter('node3', 'not json', 'k3', 'TEXT'),
      ],
      [],
      {},
    );
    const group = run.node('g');
    assert.deepEqual(group.relationTypes, ['Success']);
    assert.equal(group.outMsgs[0]?.msg.data, '{"a":1,"b":2,"c":3,"node3":"not json"}');
  });

  it('groupAction with empty nodeIds loads, and each message takes Failure "nodeIds is empty"', async () => {
    const run = await runLogged(
      t,
      [{ id: 'g', type: 'groupAction', configuration: { nodeIds: '' } }],
      [],
      {},
    );
    assert.equal(run.response.statusCode, 400, run.response.body);
    assert.deepEqual(run.response.json(), { error: 'nodeIds is empty' });
    assert.deepEqual(run.relations(), [['g', ['Failure']]]);
    assert.equal(run.node('g').err, 'nodeIds is empty');
  });
});
