// RuleGo fidelity for expressions (exprFilter, switch): the assertions of RuleGo's
// components/filter/expr_filter_node_test.go and components/common/switch_node_test.go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import type { RuleMessage } from '../../src/engine/types.ts';
import { chain, createEngine, recorder, testServices } from './helpers.ts';

/** Loads a one-node chain and returns the relations the node took and its errorMsg, per message. */
async function routeOf(node: Record<string, unknown>, messages: RuleMessage[], services = testServices()) {
  const engine = createEngine({ services });
  await engine.load(chain('c', [{ id: 'n', ...node } as never]));
  const out: { relations: string[]; error?: string | undefined }[] = [];
  for (const message of messages) {
    const { events, onEvent } = recorder();
    await engine.execute('c', message, { onEvent });
    const end = events.find((event) => event.type === 'node-end');
    assert.ok(end?.type === 'node-end');
    out.push({ relations: end.relations, error: end.error });
  }
  await engine.close();
  return out;
}

const text = newMessage('AA', { type: 'ACTIVITY_EVENT', metadata: { productType: 'test' } });
const hot = newMessage({ name: 'aa', temperature: 60, humidity: 30 }, { type: 'ACTIVITY_EVENT' });
const cold = newMessage({ name: 'bb', temperature: 40 }, { type: 'ACTIVITY_EVENT' });

test('exprFilter: member access on text data is a Failure, as in RuleGo', async () => {
  const [result] = await routeOf({ type: 'exprFilter', configuration: { expr: 'msg.temperature > 50' } }, [
    text,
  ]);
  assert.deepEqual(result?.relations, ['Failure']);
  assert.ok(result?.error);
});

test('exprFilter: expr-lang expressions over msg route True and False', async () => {
  const results = await routeOf({ type: 'exprFilter', configuration: { expr: "upper(msg.name)=='AA'" } }, [
    hot,
    cold,
  ]);
  assert.deepEqual(
    results.map((result) => result.relations),
    [['True'], ['False']],
  );
  const both = await routeOf(
    { type: 'exprFilter', configuration: { expr: 'msg.temperature > 50 && msg.humidity > 20' } },
    [hot],
  );
  assert.deepEqual(both[0]?.relations, ['True']);
});

test('exprFilter: unknown names are nil, and text data is the string msg', async () => {
  for (const expr of ['temperature==nil?true:false', "upper(msg)=='AA'", "upper(msg[:1])=='A'"]) {
    const [result] = await routeOf({ type: 'exprFilter', configuration: { expr } }, [text]);
    assert.deepEqual(result?.relations, ['True'], expr);
  }
});

test('exprFilter: a non-boolean result is False, not a Failure', async () => {
  const results = await routeOf({ type: 'exprFilter', configuration: { expr: '1' } }, [hot]);
  assert.deepEqual(results[0]?.relations, ['False']);
});

test('exprFilter: a ${...} wrapper is the same expression', async () => {
  const results = await routeOf(
    { type: 'exprFilter', configuration: { expr: '${msg.temperature} > 50 && msg.name == "${x}"' } },
    [hot],
  );
  // Outside quotes the wrapper is removed; inside them it is text, so the comparison is false.
  assert.deepEqual(results[0]?.relations, ['False']);
  const [plain] = await routeOf({ type: 'exprFilter', configuration: { expr: '${msg.temperature > 50}' } }, [
    hot,
  ]);
  assert.deepEqual(plain?.relations, ['True']);
});

test('exprFilter: the environment has id, ts, data, msgType, dataType, metadata, vars and global', async () => {
  const message = newMessage({ a: 1 }, { id: 'm1', ts: 42, type: 'T', metadata: { k: 'v' } });
  const expr =
    'id == "m1" && ts == 42 && data == "{\\"a\\":1}" && msgType == "T" && dataType == "JSON"' +
    ' && metadata.k == "v" && vars.limit == "9" && global.site == "s1" && msg.a == 1';
  const engine = createEngine({ services: testServices({ globals: () => ({ site: 's1' }) }) });
  await engine.load(
    chain('c', [{ id: 'n', type: 'exprFilter', configuration: { expr } }], [], {
      configuration: { vars: { limit: '9' } },
    }),
  );
  const { events, onEvent } = recorder();
  await engine.execute('c', message, { onEvent });
  const end = events.find((event) => event.type === 'node-end');
  assert.ok(end?.type === 'node-end');
  assert.deepEqual(end.relations, ['True']);
  await engine.close();
});

test('exprFilter: an empty or invalid expression is rejected at load, naming the node', async () => {
  const engine = createEngine();
  await assert.rejects(
    engine.load(chain('c', [{ id: 'f1', type: 'exprFilter', configuration: { expr: ' ' } }])),
    /rule chain "c": node "f1": configuration\.expr: expr can not be empty/,
  );
  await assert.rejects(
    engine.load(chain('c', [{ id: 'f2', type: 'exprFilter', configuration: { expr: 'msg.a >' } }])),
    (error: Error & { kind?: string }) =>
      error.kind === 'invalid' && /^rule chain "c": node "f2": expr: /.test(error.message),
  );
  await engine.close();
});

test('exprFilter: the expression is JavaScript no more (=== does not compile)', async () => {
  const engine = createEngine();
  await assert.rejects(
    engine.load(chain('c', [{ id: 'f', type: 'exprFilter', configuration: { expr: 'msgType === "A"' } }])),
    /node "f": expr: /,
  );
  await engine.close();
});

test('switch: the first true case names the relation; an erroring case is skipped to Default', async () => {
  const configuration = {
    cases: [
      { case: 'msg.temperature >= 20 && msg.temperature <= 50', then: 'Case1' },
      { case: 'msg.temperature > 50', then: 'Case2' },
      { case: 'msg.humidity', then: 'NotBoolean' },
    ],
  };
  const results = await routeOf({ type: 'switch', configuration }, [
    newMessage({ temperature: 30 }),
    newMessage({ temperature: 60 }),
    newMessage({ temperature: 10, humidity: 5 }),
    text,
  ]);
  assert.deepEqual(
    results.map((result) => result.relations),
    [['Case1'], ['Case2'], ['Default'], ['Default']],
  );
});

test('switch: a null case list routes everything to Default', async () => {
  const results = await routeOf({ type: 'switch', configuration: { cases: null } }, [hot]);
  assert.deepEqual(results[0]?.relations, ['Default']);
});

test('exprFilter: ${node.msg.x} reads the last output of an earlier node in the run', async () => {
  const engine = createEngine();
  await engine.load(
    chain(
      'c',
      [
        {
          id: 'node1',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {temperature: 60}, metadata, msgType};' },
        },
        {
          id: 'node2',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {humidity: 30}, metadata, msgType};' },
        },
        {
          id: 'f',
          type: 'exprFilter',
          configuration: { expr: '${node1.msg.temperature} > 50 && msg.humidity > 20' },
        },
      ],
      [
        ['node1', 'Success', 'node2'],
        ['node2', 'Success', 'f'],
      ],
    ),
  );
  const { events, onEvent } = recorder();
  await engine.execute('c', newMessage({}), { onEvent });
  const end = events.find((event) => event.type === 'node-end' && event.nodeId === 'f');
  assert.ok(end?.type === 'node-end');
  assert.deepEqual(end.relations, ['True']);
  await engine.close();
});

test('switch: the cases of RuleGo switch_node_test route as RuleGo asserts', async () => {
  const cases = [
    { case: 'msg.temperature > 50', then: 'case1' },
    { case: 'metadata.productType == "test"', then: 'case2' },
    { case: 'msg.temperature > 30 && msg.humidity > 20', then: 'case3' },
    { case: 'msg.temperature2!=nil &&msg.temperature2 > 50', then: 'case4' },
  ];
  const message = (temperature: number, productType: string) =>
    newMessage(
      { name: 'aa', temperature, humidity: 30 },
      { type: 'ACTIVITY_EVENT', metadata: { productType } },
    );
  const results = await routeOf({ type: 'switch', configuration: { cases } }, [
    message(60, 'test2'),
    message(20, 'test'),
    message(40, 'test2'),
    message(10, 'test2'),
  ]);
  assert.deepEqual(
    results.map((result) => result.relations),
    [['case1'], ['case2'], ['case3'], ['Default']],
  );
  // nil > 50 is an evaluation error: the case is skipped, not a Failure.
  const missing = await routeOf(
    { type: 'switch', configuration: { cases: [{ then: 'case4', case: 'msg.temperature2 > 50' }] } },
    [message(60, 'test2')],
  );
  assert.deepEqual(missing[0]?.relations, ['Default']);
});

test('exprFilter: an unclosed ${ is a syntax error at load', async () => {
  const engine = createEngine();
  for (const expr of ['${node1.msg.temperature >', '${node1.msg.temperature']) {
    await assert.rejects(
      engine.load(chain('c', [{ id: 'f', type: 'exprFilter', configuration: { expr } }])),
      /node "f": expr: /,
      expr,
    );
  }
  await engine.close();
});
