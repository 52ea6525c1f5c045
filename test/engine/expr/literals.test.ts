// Literals as expr-lang's language definition and lexer tests give them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, valueTable } from './helpers.ts';

valueTable('integers', [
  ['42', 42],
  ['0x2A', 42],
  ['0o52', 42],
  ['0b101010', 42],
  ['0XFF', 255],
  ['0O600', 384],
  ['0B101011', 43],
  ['1_000_000', 1000000],
  ['0x_FF', 255],
  ['02', 2],
  ['9223372036854775807 > 0', true],
]);

valueTable('floats', [
  ['0.5', 0.5],
  ['.5', 0.5],
  ['-.5', -0.5],
  ['0.025', 0.025],
  ['1e3', 1000],
  ['1.2e-4', 0.00012],
  ['1E+2', 100],
  ['1_000.5', 1000.5],
]);

valueTable('strings', [
  ['"double"', 'double'],
  ["'single'", 'single'],
  ['"abc \\n\\t\\"\\\\"', 'abc \n\t"\\'],
  [`'"\\''`, `"'`],
  [`"'\\""`, `'"`],
  ['"\\xC3\\xBF\\u263A\\U000003A8"', '\u00c3\u00bf\u263a\u03a8'],
  ['"\\u{1F600}"', '\u{1F600}'],
  ['"\\101\\102"', 'AB'],
  ["'❤️'", '❤️'],
  ['"Hello\\nWorld"', 'Hello\nWorld'],
  ['`backtick`', 'backtick'],
  ['`hello\\nworld`', 'hello\\nworld'],
  ['`multi\nline`', 'multi\nline'],
  ['`hello"world\'`', `hello"world'`],
  ['``', ''],
  ['`a``b`', 'a`b'],
  ['````', '`'],
  ['```a````b```', '`a``b`'],
]);

valueTable('constants', [
  ['true', true],
  ['false', false],
  ['nil', null],
]);

valueTable('arrays', [
  ['[]', []],
  ['[1, 2, 3]', [1, 2, 3]],
  ['[1, "a", true, nil]', [1, 'a', true, null]],
  ['[[1, 2], [3]]', [[1, 2], [3]]],
  ['[1, 2, 3,]', [1, 2, 3]],
]);

valueTable('maps', [
  ['{}', {}],
  ['{a: 1, b: 2, c: 3}', { a: 1, b: 2, c: 3 }],
  [`{"name": "John", 'age': 30}`, { name: 'John', age: 30 }],
  ['{foo: 0, bar: 1,}', { foo: 0, bar: 1 }],
  ['{1: "one", 2.5: "x"}', { '1': 'one', '2.5': 'x' }],
  ['{("a" + "b"): 1}', { ab: 1 }],
  ['{a: {b: [1, {c: nil}]}}', { a: { b: [1, { c: null }] } }],
]);

valueTable('comments', [
  ['1 /* one */ + 2 // two', 3],
  ['// only a comment\n42', 42],
  ['/* multi\nline */ 7', 7],
]);

test('a map literal keeps `__proto__` as an ordinary own key', () => {
  const value = evaluate('{__proto__: {polluted: true}, a: 1}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ['__proto__', 'a']);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});
