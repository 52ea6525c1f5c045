// Facts from RuleGo's components/transform and components/filter tests: exprTransform,
// metadataTransform, msgTypeSwitch and fieldFilter route and rewrite messages as RuleGo does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import type { RuleMessage, RunResult } from '../../src/engine/types.ts';
import { chain, createEngine, recorder } from './helpers.ts';
import type { Link, NodeSpec } from './helpers.ts';

const sensor = (): RuleMessage =>
  newMessage(
    { name: 'aa', temperature: 60, humidity: 30 },
    { type: 'ACTIVITY_EVENT', metadata: { productType: 'test' } },
  );

/** Runs one node (with an end after each relation named) and returns the run and the relation taken. */
async function runOne(
  node: NodeSpec,
  message: RuleMessage,
  relations: string[] = ['Success', 'Failure'],
  before: { nodes: NodeSpec[]; links: Link[] } = { nodes: [], links: [] },
): Promise<{ result: RunResult; relation: string | undefined }> {
  const engine = createEngine();
  const links: Link[] = [...before.links, ...relations.map((type): Link => [node.id, type, `end-${type}`])];
  const ends = relations.map((type): NodeSpec => ({ id: `end-${type}`, type: 'end' }));
  await engine.load(chain('c1', [...before.nodes, node, ...ends], links));
  const { events, onEvent } = recorder();
  const result = await engine.execute('c1', message, { onEvent });
  await engine.close();
  const end = events.find((event) => event.type === 'node-end' && event.nodeId === node.id);
  return { result, relation: end?.type === 'node-end' ? end.relations[0] : undefined };
}

test('exprTransform mapping builds a JSON object from expressions over msg and metadata', async () => {
  const { result, relation } = await runOne(
    {
      id: 't',
      type: 'exprTransform',
      configuration: {
        mapping: {
          name: 'upper(msg.name)',
          tmp: 'msg.temperature',
          alarm: 'msg.temperature>50',
          productType: 'metadata.productType',
          kind: 'msgType',
        },
      },
    },
    sensor(),
  );
  assert.equal(relation, 'Success');
  const reply = result.results[0];
  assert.equal(reply?.dataType, 'JSON');
  assert.deepEqual(JSON.parse(reply?.data ?? ''), {
    name: 'AA',
    tmp: 60,
    alarm: true,
    productType: 'test',
    kind: 'ACTIVITY_EVENT',
  });
});

test('exprTransform expr replaces the data with its value as text and wins over the mapping', async () => {
  const upper = await runOne(
    { id: 't', type: 'exprTransform', configuration: { expr: 'upper(msg.name)', mapping: { a: '1' } } },
    sensor(),
  );
  assert.equal(upper.result.results[0]?.data, 'AA');
  const doubled = await runOne(
    { id: 't', type: 'exprTransform', configuration: { expr: 'msg.temperature * 2' } },
    newMessage({ temperature: 25 }),
  );
  assert.equal(doubled.result.results[0]?.data, '50');
  const text = await runOne(
    { id: 't', type: 'exprTransform', configuration: { expr: 'upper(msg[:1])' } },
    newMessage('aa'),
  );
  assert.equal(text.result.results[0]?.data, 'A');
  assert.equal(text.result.results[0]?.dataType, 'TEXT', 'a single expression keeps the data type');
});

test('exprTransform without configuration gives {} and an evaluation error takes Failure', async () => {
  const empty = await runOne({ id: 't', type: 'exprTransform' }, sensor());
  assert.equal(empty.result.results[0]?.data, '{}');
  const failing = await runOne(
    { id: 't', type: 'exprTransform', configuration: { expr: "msg.aa + 'xx'" } },
    newMessage('aa'),
  );
  assert.equal(failing.relation, 'Failure');
  assert.ok(failing.result.results[0]?.metadata['errorMsg']);
});

test('exprTransform reads an earlier node output through ${nodeId.msg.x}', async () => {
  const { result } = await runOne(
    {
      id: 't',
      type: 'exprTransform',
      configuration: {
        expr: '${node1.msg.temperature} + 10',
        mapping: {},
      },
    },
    newMessage({ temperature: 25 }, { metadata: { deviceType: 'sensor' } }),
    ['Success'],
    {
      nodes: [
        {
          id: 'node1',
          type: 'exprTransform',
          configuration: { mapping: { temperature: 'msg.temperature * 2' } },
        },
      ],
      links: [['node1', 'Success', 't']],
    },
  );
  assert.equal(result.results[0]?.data, '60');
});

test('an expression that does not compile fails the load naming the node', async () => {
  const engine = createEngine();
  await assert.rejects(
    engine.load(chain('c1', [{ id: 'bad', type: 'exprTransform', configuration: { expr: 'msg.a +' } }])),
    (error: Error) => /node "bad"/.test(error.message),
  );
  await assert.rejects(
    engine.load(
      chain('c2', [{ id: 'meta', type: 'metadataTransform', configuration: { mapping: { x: '(' } } }]),
    ),
    (error: Error) => /node "meta"/.test(error.message),
  );
  await engine.close();
});

test('metadataTransform updates the mapped keys, or with isNew replaces the metadata', async () => {
  const mapping = { temperature: 'msg.temperature', name: 'upper(msg.name)' };
  const update = await runOne({ id: 'm', type: 'metadataTransform', configuration: { mapping } }, sensor());
  const updated = update.result.results[0];
  assert.equal(update.relation, 'Success');
  assert.deepEqual(updated?.metadata, { productType: 'test', temperature: '60', name: 'AA' });
  assert.deepEqual(JSON.parse(updated?.data ?? ''), { name: 'aa', temperature: 60, humidity: 30 });
  const fresh = await runOne(
    { id: 'm', type: 'metadataTransform', configuration: { mapping, isNew: true } },
    sensor(),
  );
  assert.deepEqual(fresh.result.results[0]?.metadata, { temperature: '60', name: 'AA' });
});

test('msgTypeSwitch takes the relation named after the message type, else goes down Default under that name', async () => {
  const node: NodeSpec = { id: 's', type: 'msgTypeSwitch' };
  const matched = await runOne(node, newMessage({}, { type: 'TEST_MSG_TYPE1' }), [
    'TEST_MSG_TYPE1',
    'Default',
  ]);
  assert.equal(matched.relation, 'TEST_MSG_TYPE1');
  assert.equal(matched.result.results.length, 1);
  const other = await runOne(node, newMessage({}, { type: 'UNKNOWN' }), ['TEST_MSG_TYPE1', 'Default']);
  assert.equal(other.relation, 'UNKNOWN');
  assert.deepEqual(
    other.result.ends?.map((end) => end.nodeId),
    ['end-Default'],
  );
});

test('fieldFilter checks data fields and metadata keys, all or any', async () => {
  const message = (): RuleMessage =>
    newMessage({ name: 'aa', temperature: 10 }, { metadata: { productType: 'test' } });
  const relationFor = async (configuration: Record<string, unknown>, input = message()) =>
    (await runOne({ id: 'f', type: 'fieldFilter', configuration }, input, ['True', 'False', 'Failure']))
      .relation;
  assert.equal(
    await relationFor({ checkAllKeys: true, dataNames: 'name,temperature', metadataNames: 'productType' }),
    'True',
  );
  assert.equal(
    await relationFor({ checkAllKeys: true, dataNames: 'name,humidity', metadataNames: 'productType' }),
    'False',
  );
  assert.equal(await relationFor({ dataNames: 'humidity', metadataNames: 'productType' }), 'True');
  assert.equal(await relationFor({ dataNames: 'humidity', metadataNames: 'missing' }), 'False');
  assert.equal(await relationFor({ dataNames: 'name' }, newMessage('[1]', { dataType: 'JSON' })), 'Failure');
  assert.equal(
    await relationFor({ dataNames: 'name' }, newMessage('name')),
    'False',
    'TEXT data has no fields',
  );
});

test('groupAction calls only the listed nodes and succeeds when all end with the match relation', async () => {
  const filter = (id: string, script: string): NodeSpec => ({
    id,
    type: 'jsFilter',
    configuration: { jsScript: script },
  });
  const engine = createEngine();
  const group = (configuration: Record<string, unknown>) =>
    chain(
      'c1',
      [
        { id: 'group', type: 'groupAction', configuration },
        filter('hot', 'return msg.t > 50;'),
        filter('wet', 'return msg.h > 50;'),
        { id: 'after', type: 'jsTransform', configuration: { jsScript: 'throw new Error("followed");' } },
      ],
      [['hot', 'True', 'after']],
    );
  await engine.load(group({ nodeIds: 'hot,wet', matchRelationType: 'True' }));
  const both = await engine.execute('c1', newMessage({ t: 60, h: 60 }));
  assert.equal(both.outcome, 'success', 'the node after "hot" did not run');
  const records = JSON.parse(both.results[0]?.data ?? '') as Array<{ nodeId: string; err: string }>;
  assert.deepEqual(records.map((record) => [record.nodeId, record.err]).sort(), [
    ['hot', ''],
    ['wet', ''],
  ]);
  const one = await engine.execute('c1', newMessage({ t: 60, h: 10 }));
  assert.equal(one.outcome, 'failure');
  await engine.load(
    group({ nodeIds: ['hot', 'wet'], matchRelationType: 'True', matchNum: 1, mergeToMap: true }),
  );
  const enough = await engine.execute('c1', newMessage({ t: 60, h: 10 }));
  assert.equal(enough.outcome, 'success');
  assert.deepEqual(JSON.parse(enough.results[0]?.data ?? ''), { t: 60, h: 10 });
  await engine.close();
});

test('text/template renders Go template fields, range with trim markers and escape', async () => {
  const template = `
id:{{ .id}}
type:{{ .type}}
msgType:{{ .msgType}}
data:{{ .data}}
msg.name:{{ .msg.name}}
dataType:{{ .dataType}}
productType:{{ .metadata.productType}}
nameList:
{{- range .msg.nameList }}
  - {{ . }}
{{- end }}
`;
  const input = newMessage(
    { name: 'aa', nameList: ['aa', 'bb'], temperature: 60 },
    { id: 'm1', type: 'ACTIVITY_EVENT', metadata: { productType: 'test' } },
  );
  const { result, relation } = await runOne(
    { id: 't', type: 'text/template', configuration: { template } },
    input,
  );
  assert.equal(relation, 'Success');
  assert.equal(
    result.results[0]?.data,
    `
id:m1
type:ACTIVITY_EVENT
msgType:ACTIVITY_EVENT
data:{"name":"aa","nameList":["aa","bb"],"temperature":60}
msg.name:aa
dataType:JSON
productType:test
nameList:
  - aa
  - bb
`,
  );
  const escaped = await runOne(
    { id: 't', type: 'text/template', configuration: { template: 'data:"{{.data | escape}}"' } },
    newMessage({ name: 'aa' }),
  );
  assert.equal(escaped.result.results[0]?.data, 'data:"{\\"name\\":\\"aa\\"}"');
  const engine = createEngine();
  await assert.rejects(
    engine.load(
      chain('c2', [{ id: 'bad', type: 'text/template', configuration: { template: '{{ .a | nope }}' } }]),
    ),
    /node "bad"/,
  );
  await engine.close();
});
