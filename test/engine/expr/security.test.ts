// An expression comes from a chain and runs on message data: it must not reach JS prototypes or
// functions, and it must not exhaust the stack, memory or the event loop.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileExpression, ExprEvalError, ExprSyntaxError } from '../../../src/engine/expr/expr.ts';
import { evalErrorTable, evaluate, valueTable } from './helpers.ts';

const ENV = {
  msg: { name: 'Ada', list: [1, 2] },
  fn: () => 'called',
  holder: { fn: () => 'called' },
  when: new Date(0),
  list: Array.from({ length: 1000 }, (_, index) => index),
};

valueTable(
  'prototype names are missing keys',
  [
    ['msg.constructor', null],
    ['msg.__proto__', null],
    ['msg["__proto__"]', null],
    ['msg.toString', null],
    ['msg.hasOwnProperty', null],
    ['constructor', null],
    ['__proto__', null],
    ['toString', null],
    ['$env.constructor', null],
    ['"constructor" in msg', false],
    ['get(msg, "constructor")', null],
    ['{}.constructor', null],
    ['fromJSON(\'{"__proto__": {"polluted": 1}}\').polluted', null],
    ['fromJSON(\'{"__proto__": {"polluted": 1}}\')["__proto__"].polluted', 1],
    ['groupBy(["a"], "__proto__")["__proto__"]', ['a']],
    ['fromPairs([["__proto__", 1]])["__proto__"]', 1],
    ['type(fn)', 'func'],
  ],
  ENV,
);

evalErrorTable(
  'nothing but maps and arrays can be read, and nothing can be called',
  [
    ['msg.constructor.name', 'cannot fetch name from nil'],
    ['msg.name.constructor', 'cannot fetch constructor from string'],
    ['msg.list.constructor', 'cannot fetch constructor from array'],
    ['msg.name.length', 'cannot fetch length from string'],
    ['when.getTime', 'cannot fetch getTime from unknown'],
    ['holder.fn()', 'type map has no method fn'],
    ['fn.call', 'cannot fetch call from func'],
    ['now().constructor', 'cannot fetch constructor from time.Time'],
    ['duration("1s").toString()', 'type time.Duration has no method toString'],
  ],
  ENV,
);

test('an environment function is not callable by name', () => {
  assert.throws(() => compileExpression('fn()'), /unknown function fn/);
});

test('evaluation never pollutes Object.prototype', () => {
  for (const source of [
    '{__proto__: {polluted: 1}}',
    'fromJSON(\'{"__proto__": {"polluted": 1}}\')',
    'fromPairs([["__proto__", {polluted: 1}]])',
    'groupBy([1], "__proto__")',
  ]) {
    evaluate(source);
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

function syntaxReason(source: string): string | undefined {
  try {
    compileExpression(source);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ExprSyntaxError);
    return error.reason;
  }
}

test('nesting beyond 200 levels is a syntax error; 150 levels compile', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}1${')'.repeat(depth)}`;
  assert.equal(evaluate(nested(150)), 1);
  assert.equal(syntaxReason(nested(200)), 'expression nests too deeply (more than 200 levels)');
  assert.equal(syntaxReason(`${'-'.repeat(300)}1`), 'expression nests too deeply (more than 200 levels)');
  assert.equal(
    syntaxReason(`${'['.repeat(250)}${']'.repeat(250)}`),
    'expression nests too deeply (more than 200 levels)',
  );
  assert.equal(syntaxReason(`2${' ** 2'.repeat(250)}`), 'expression nests too deeply (more than 200 levels)');
});

test('long chains are bounded by tree height, and big expressions by node count', () => {
  assert.equal(evaluate(`1${' + 1'.repeat(500)}`), 501);
  assert.equal(
    syntaxReason(`1${' + 1'.repeat(2000)}`),
    'expression nests too deeply (more than 1000 levels)',
  );
  assert.equal(syntaxReason(`a${'.b'.repeat(1500)}`), 'expression nests too deeply (more than 1000 levels)');
  assert.equal(syntaxReason(`[${'1,'.repeat(10_001)}]`), 'expression is too large (more than 10000 nodes)');
});

evalErrorTable(
  'memory and time budgets',
  [
    ['1..1000001', 'memory budget exceeded'],
    ['len(0..1000000)', 'memory budget exceeded'],
    ['repeat("ab", 600000)', 'memory budget exceeded'],
    ['repeat("x", 10009999990)', 'memory budget exceeded'],
    ['map(1..1000, 1..1000)', 'memory budget exceeded'],
    ['reduce(1..40, #acc + #acc, "x")', 'memory budget exceeded'],
    ['all(list, all(list, all(list, true)))', 'too many iterations (more than 10000000)'],
  ],
  ENV,
);

test('a budget is per evaluation, not per compiled expression', () => {
  const compiled = compileExpression('len(1..600000)');
  assert.equal(compiled.evaluate({}), 600_000);
  assert.equal(compiled.evaluate({}), 600_000);
});

test('deeply nested data fails with an error, not a crash', () => {
  let deep: unknown = [1];
  for (let depth = 0; depth < 5000; depth += 1) deep = [deep];
  for (const source of ['flatten(deep)', 'toJSON(deep)', 'string(deep)', 'max(deep)']) {
    assert.throws(
      () => compileExpression(source).evaluate({ deep }),
      (error: unknown) => error instanceof ExprEvalError && error.reason === 'recursion depth exceeded',
      source,
    );
  }
});

test('the evaluator builds no code at run time', () => {
  const folder = join(import.meta.dirname, '../../../src/engine/expr');
  for (const file of readdirSync(folder)) {
    const text = readFileSync(join(folder, file), 'utf8');
    assert.doesNotMatch(text, /\beval\s*\(|new Function\b|\bFunction\s*\(/, file);
  }
});
