// RuleGo fidelity for scripts (jsFilter, jsSwitch, log), chain variables and DSL loading: the
// assertions of RuleGo's components/filter/js_*_test.go, components/action/js_log_node_test.go,
// engine/node.go processVariables and engine/chain.go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import type { NodeServices, RunEvent } from '../../src/engine/types.ts';
import { chain, createEngine, recorder, testServices } from './helpers.ts';

async function runChain(definition: unknown, data: string | object, services: NodeServices = testServices()) {
  const engine = createEngine({ services });
  await engine.load(definition);
  const { events, onEvent } = recorder();
  const result = await engine.execute('c', newMessage(data, { type: 'T', metadata: { m: 'x' } }), {
    onEvent,
  });
  await engine.close();
  const ends = events.filter(
    (event): event is Extract<RunEvent, { type: 'node-end' }> => event.type === 'node-end',
  );
  return { result, ends };
}

const transform = (id: string, script: string) => ({
  id,
  type: 'jsTransform',
  configuration: { jsScript: script },
});

test('jsFilter is True only for the boolean true; truthy values are False', async () => {
  for (const [script, relation] of [
    ['return true;', 'True'],
    ['return 1;', 'False'],
    ['return "true";', 'False'],
    ['return msg.on;', 'True'],
  ] as const) {
    const { ends } = await runChain(
      chain('c', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: script } }]),
      {
        on: true,
      },
    );
    assert.deepEqual(ends[0]?.relations, [relation], script);
  }
});

test('scripts run in strict mode: assigning an undeclared name is a Failure', async () => {
  const { ends } = await runChain(
    chain('c', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: 'leak = 1; return true;' } }]),
    {},
  );
  assert.deepEqual(ends[0]?.relations, ['Failure']);
  assert.match(ends[0]?.error ?? '', /leak/);
});

test('vars and global are read-only script globals', async () => {
  const services = testServices({ globals: () => ({ site: { name: 's1' } }) });
  const read = chain(
    'c',
    [transform('t', 'return {msg: vars.who + "@" + global.site.name, metadata, msgType};')],
    [],
    {
      configuration: { vars: { who: 'ann' } },
    },
  );
  const { result } = await runChain(read, {}, services);
  assert.equal(result.results[0]?.data, 'ann@s1');

  const write = chain('c', [transform('t', 'vars.who = "bob"; return {msg, metadata, msgType};')], [], {
    configuration: { vars: { who: 'ann' } },
  });
  const failed = await runChain(write, {}, services);
  assert.deepEqual(failed.ends[0]?.relations, ['Failure']);
});

test('jsSwitch: a relation with no connection goes to Default, logged by its own name; a non-array is a Failure', async () => {
  const definition = chain(
    'c',
    [
      { id: 's', type: 'jsSwitch', configuration: { jsScript: 'return msg.to;' } },
      transform('a', 'return {msg: "a", metadata, msgType};'),
      transform('d', 'return {msg: "default", metadata, msgType};'),
    ],
    [
      ['s', 'A', 'a'],
      ['s', 'Default', 'd'],
    ],
  );
  const routed = await runChain(definition, { to: ['A', 'nowhere'] });
  // As RuleGo's TellNextOrElse: the message goes down Default, the node reports the name returned.
  assert.deepEqual(routed.ends.find((end) => end.nodeId === 's')?.relations.sort(), ['A', 'nowhere']);
  assert.deepEqual(routed.result.results.map((message) => message.data).sort(), ['a', 'default']);

  const notArray = await runChain(definition, { to: 'A' });
  assert.deepEqual(notArray.ends[0]?.relations, ['Failure']);
});

test('log runs its script and writes the text through the logger; non-string or error is a Failure', async () => {
  const lines: string[] = [];
  const logger = {
    info: (_details: Record<string, unknown>, text: string) => lines.push(text),
    warn: () => undefined,
  };
  const services = testServices({ logger });
  const ok = await runChain(
    chain('c', [{ id: 'l', type: 'log', configuration: { jsScript: 'return "v=" + msg.v;' } }]),
    { v: 3 },
    services,
  );
  assert.deepEqual(ok.ends[0]?.relations, ['Success']);
  assert.deepEqual(lines, ['v=3']);

  const number = await runChain(
    chain('c', [{ id: 'l', type: 'log', configuration: { jsScript: 'return 1;' } }]),
    {},
    services,
  );
  assert.deepEqual(number.ends[0]?.relations, ['Failure']);
  assert.match(number.ends[0]?.error ?? '', /return the value is not a string/);

  const thrown = await runChain(
    chain('c', [{ id: 'l', type: 'log', configuration: { jsScript: 'throw new Error("boom");' } }]),
    {},
    testServices(),
  );
  assert.deepEqual(thrown.ends[0]?.relations, ['Failure']);
  assert.match(thrown.ends[0]?.error ?? '', /boom/);
});

test("log without a script writes RuleGo's default text", async () => {
  const lines: string[] = [];
  const logger = {
    info: (_details: Record<string, unknown>, text: string) => lines.push(text),
    warn: () => undefined,
  };
  await runChain(
    {
      ruleChain: { id: 'c', name: 'c' },
      metadata: { nodes: [{ id: 'l', type: 'log', configuration: null }] },
    },
    { a: 1 },
    testServices({ logger }),
  );
  assert.deepEqual(lines, ['Incoming message:\n{"a":1}\nIncoming metadata:\n{"m":"x"}']);
});

test('${vars.x}, ${global.x} and ${ruleChain.id} are replaced in every configuration string at load', async () => {
  const services = testServices({ globals: () => ({ greeting: 'hi' }) });
  const definition = chain(
    'c',
    [
      transform(
        't',
        'return {msg: "${global.greeting} ${vars.name} from ${ruleChain.id} ${vars.missing} ${msg.x}", metadata, msgType};',
      ),
    ],
    [],
    { configuration: { vars: { name: 'ann' } } },
  );
  const { result } = await runChain(definition, {}, services);
  // Unknown variables and message placeholders stay as written.
  assert.equal(result.results[0]?.data, 'hi ann from c ${vars.missing} ${msg.x}');
});

test('a variable can stand for an expression, replaced before it compiles', async () => {
  const definition = chain(
    'c',
    [{ id: 'f', type: 'exprFilter', configuration: { expr: 'msg.t > ${vars.limit}' } }],
    [],
    {
      configuration: { vars: { limit: '50' } },
    },
  );
  assert.deepEqual((await runChain(definition, { t: 60 })).ends[0]?.relations, ['True']);
  assert.deepEqual((await runChain(definition, { t: 40 })).ends[0]?.relations, ['False']);
});

test('the DSL loads as RuleGo: null configuration, missing ids and name, values written as strings', async () => {
  const definition = {
    ruleChain: { id: 'c', debugMode: 'true', configuration: null },
    metadata: {
      firstNodeIndex: '0',
      nodes: [
        { type: 'delay', configuration: { delayMs: 5, periodInSeconds: '0', maxPendingMsgs: '2' } },
        { type: 'log', configuration: null, debugMode: 'false' },
      ],
      connections: [{ fromId: 'node0', toId: 'node1', type: 'Success' }],
    },
  };
  const { result, ends } = await runChain(definition, 'x');
  assert.equal(result.outcome, 'success');
  assert.deepEqual(
    ends.map((end) => [end.nodeId, end.relations]),
    [
      ['node0', ['Success']],
      ['node1', ['Success']],
    ],
  );
  const engine = createEngine();
  const parsed = await engine.validate(definition);
  assert.equal(parsed.ruleChain.debugMode, true);
  assert.equal(parsed.ruleChain.name, '');
  await engine.close();
});

test('a string that is not a number is still rejected where a number is needed', async () => {
  const engine = createEngine();
  await assert.rejects(
    engine.load(chain('c', [{ id: 'd', type: 'delay', configuration: { maxPendingMsgs: 'many' } }])),
    /node "d": configuration\.maxPendingMsgs/,
  );
  await engine.close();
});

test('jsTransform changes only the keys it returns; a non-object is a Failure; no script passes through', async () => {
  const text = (script: string) => chain('c', [transform('t', script)]);
  const kept = await runChain(text('return {metadata: {a: 1}};'), { v: 1 });
  assert.deepEqual(kept.result.results[0]?.data, '{"v":1}');
  assert.deepEqual(kept.result.results[0]?.metadata, { a: '1' });
  assert.equal(kept.result.results[0]?.type, 'T');

  const typed = await runChain(text('return {msg: {w: 2}, msgType: "U"};'), 'plain');
  assert.equal(typed.result.results[0]?.data, '{"w":2}');
  assert.equal(typed.result.results[0]?.type, 'U');
  // The data type changes only when the script names one.
  assert.equal(typed.result.results[0]?.dataType, 'TEXT');
  assert.deepEqual(typed.result.results[0]?.metadata, { m: 'x' });

  const named = await runChain(text('return {msg: "x", dataType: "TEXT"};'), { v: 1 });
  assert.equal(named.result.results[0]?.dataType, 'TEXT');

  for (const script of ['return 1;', 'return [1];', 'return null;']) {
    const failed = await runChain(text(script), { v: 1 });
    assert.deepEqual(failed.ends[0]?.relations, ['Failure'], script);
    assert.match(failed.ends[0]?.error ?? '', /return the value is not a map/, script);
  }

  const passed = await runChain(
    {
      ruleChain: { id: 'c', name: 'c' },
      metadata: { nodes: [{ id: 't', type: 'jsTransform', configuration: null }] },
    },
    { v: 1 },
  );
  assert.equal(passed.result.results[0]?.data, '{"v":1}');
});
