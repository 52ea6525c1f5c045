// Expressions as RuleGo chains write them, over RuleGo's environment: id, ts, data, msgType,
// dataType, msg (parsed JSON, or the text itself), metadata (also spread at the top level),
// vars and global. Rows from RuleGo's expr_filter_node_test.go are marked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileExpression, ExprEvalError, ExprTime } from '../../../src/engine/expr/expr.ts';
import { evalErrorTable, valueTable, type Env } from './helpers.ts';

function ruleGoEnv(data: string, metadata: Record<string, string>, msgType = 'TELEMETRY'): Env {
  let msg: unknown = data;
  try {
    msg = JSON.parse(data);
  } catch {
    // Not JSON: RuleGo hands the text itself to the expression.
  }
  return {
    ...metadata,
    id: 'f3a9c1de',
    ts: 1_700_000_000_000,
    data,
    msgType,
    dataType: typeof msg === 'string' ? 'TEXT' : 'JSON',
    msg,
    metadata,
    vars: { threshold: 50, region: 'eu' },
    global: { tenant: 'acme' },
  };
}

const TELEMETRY = ruleGoEnv(
  JSON.stringify({
    temperature: 60,
    humidity: 30,
    name: 'aa',
    items: [{ v: 2 }, { v: 7 }],
    list: [1, 2, 3],
    tags: ['hot', 'indoor'],
    location: { lat: 52.5, lon: 13.4 },
    nothing: null,
  }),
  { productType: 'A', deviceName: 'sensor-1' },
);

valueTable(
  'RuleGo filters on a JSON message',
  [
    ['msg.temperature > 50', true],
    ['msg.temperature > 50 && msg.humidity > 20', true],
    ["upper(msg.name)=='AA'", true],
    ['temperature==nil?true:false', true],
    ["msg.temperature > 50 && metadata.productType == 'A'", true],
    ["msgType == 'TELEMETRY' and msg.items[0].v in [1,2,3]", true],
    ["msgType == 'TELEMETRY' and msg.items[1].v in [1,2,3]", false],
    ["upper(msg.name) startsWith 'A'", true],
    ["msg.a ?? 'default'", 'default'],
    ["msg.nothing ?? 'default'", 'default'],
    ["msg.temperature ?? 'default'", 60],
    ["len(msg.list) > 2 ? 'many' : 'few'", 'many'],
    ["len(msg.tags) > 2 ? 'many' : 'few'", 'few'],
    ['1..3', [1, 2, 3]],
    ['msg.list[:1]', [1]],
    ['msg.list[-1]', 3],
    ["productType == 'A'", true],
    ["deviceName matches '^sensor-\\\\d+$'", true],
    ['msg.temperature > vars.threshold', true],
    ["global.tenant + '/' + vars.region", 'acme/eu'],
    ["'hot' in msg.tags", true],
    ["'cold' not in msg.tags", true],
    ["'temperature' in msg", true],
    ['msg.location.lat > 50 and msg.location.lon < 20', true],
    ['any(msg.items, .v > 5)', true],
    ['all(msg.items, .v > 5)', false],
    ['sum(msg.items, .v)', 9],
    ['map(msg.items, .v * 10)', [20, 70]],
    ['msg.missing?.deep', null],
    ["msg.missing?.deep ?? 'n/a'", 'n/a'],
    ['ts > 0 && len(id) == 8', true],
    ["dataType == 'JSON'", true],
    ['fromJSON(data).humidity', 30],
    ['msg.temperature / 8', 7.5],
    ['msg.temperature % 7', 4],
    ['int(msg.temperature / 7)', 8],
    ["string(msg.temperature) + '°C'", '60°C'],
    ['date("2023-11-14T22:13:20Z").UnixMilli() == ts', true],
    ['now().Unix() > ts / 1000', true],
  ],
  TELEMETRY,
);

const TEXT = ruleGoEnv('AA', { productType: 'B' }, 'ACTIVITY_EVENT');

valueTable(
  'RuleGo filters on a text message',
  [
    ["upper(msg)=='AA'", true],
    ["upper(msg[:1])=='A'", true],
    ['msg[:1]', 'A'],
    ['len(msg)', 2],
    ["msg contains 'A'", true],
    ["dataType == 'TEXT'", true],
  ],
  TEXT,
);

evalErrorTable(
  'RuleGo failures (the filter node routes them to Failure)',
  [
    ['msg.temperature > 50', 'cannot fetch temperature from string'],
    ['msg.a.b == 1', 'cannot fetch a from string'],
  ],
  TEXT,
);

evalErrorTable(
  'RuleGo failures on a JSON message',
  [
    ['msg.missing.deep', 'cannot fetch deep from nil'],
    ['msg.name.first', 'cannot fetch first from string'],
    ['msg.items[5].v', 'index out of range: 5 (array length is 2)'],
    ['msg.temperature > "50"', 'invalid operation: int > string'],
  ],
  TELEMETRY,
);

test('a JSON array message slices like RuleGo: msg[:1]', () => {
  const env = ruleGoEnv('[{"v":1},{"v":2}]', {});
  assert.deepEqual(compileExpression('msg[:1]').evaluate(env), [{ v: 1 }]);
  assert.equal(compileExpression('msg[1].v').evaluate(env), 2);
});

test('a compiled filter gives each message its own answer', () => {
  const filter = compileExpression("msg.temperature > 50 && metadata.productType == 'A'");
  const hot = ruleGoEnv('{"temperature":60}', { productType: 'A' });
  const cold = ruleGoEnv('{"temperature":40}', { productType: 'A' });
  const other = ruleGoEnv('{"temperature":60}', { productType: 'B' });
  assert.deepEqual(
    [hot, cold, other, hot].map((env) => filter.evaluate(env)),
    [true, false, false, true],
  );
});

test('a switch case and a for range compile once and evaluate per message', () => {
  const cases = ['msg.temperature >= 80', 'msg.temperature >= 50', 'true'].map((source) =>
    compileExpression(source),
  );
  const route = (temperature: number) =>
    cases.findIndex((condition) => condition.evaluate({ msg: { temperature } }) === true);
  assert.deepEqual([route(90), route(60), route(10)], [0, 1, 2]);

  const range = compileExpression('msg.items | filter(.v > 1) | map(.v)');
  assert.deepEqual(range.evaluate(TELEMETRY), [2, 7]);
});

test('now() returns a time that compares with message timestamps and dates', () => {
  const now = compileExpression('now()').evaluate({});
  assert.ok(now instanceof ExprTime);
  const compare = compileExpression(
    'now() > date("2024-01-01") && now() - date("2024-01-01") > duration("24h")',
  );
  assert.equal(compare.evaluate({}), true);
});

test('the environment is read, never written', () => {
  const env = ruleGoEnv('{"list":[3,1,2]}', { k: 'v' });
  const snapshot = JSON.stringify(env);
  assert.throws(() => compileExpression('sort(msg.list) + reverse(msg.list)').evaluate(env), ExprEvalError);
  compileExpression('let x = msg.list; sortBy(x, #)').evaluate(env);
  assert.equal(JSON.stringify(env), snapshot);
});
