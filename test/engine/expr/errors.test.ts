// Errors name what failed and where, in expr-lang's layout. Syntax rows are parser_test.go's
// TestParse_error (messages and positions as there, except number literals, which we report at
// the literal itself); evaluation rows include expr_test.go's TestExpr_error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileExpression, ExprEvalError, ExprSyntaxError } from '../../../src/engine/expr/expr.ts';
import { syntaxErrorTable } from './helpers.ts';

const MAP_KEY =
  'a map key must be a quoted string, a number, a identifier, or an expression enclosed in parentheses';

syntaxErrorTable('parser_test.go TestParse_error', [
  ['foo.', 'unexpected end of expression (1:4)\n | foo.\n | ...^'],
  ['a+', 'unexpected token EOF (1:2)\n | a+\n | .^'],
  ['a ? (1+2) c', 'unexpected token Identifier("c") (1:11)\n | a ? (1+2) c\n | ..........^'],
  ['[a b]', 'unexpected token Identifier("b") (1:4)\n | [a b]\n | ...^'],
  ['foo.bar(a b)', 'unexpected token Identifier("b") (1:11)\n | foo.bar(a b)\n | ..........^'],
  ['{-}', `${MAP_KEY} (unexpected token Operator("-")) (1:2)\n | {-}\n | .^`],
  ['foo({.bar})', `${MAP_KEY} (unexpected token Operator(".")) (1:6)\n | foo({.bar})\n | .....^`],
  ['[1, 2, 3,,]', 'unexpected token Operator(",") (1:10)\n | [1, 2, 3,,]\n | .........^'],
  ['[,]', 'unexpected token Operator(",") (1:2)\n | [,]\n | .^'],
  ['{,}', `${MAP_KEY} (unexpected token Operator(",")) (1:2)\n | {,}\n | .^`],
  ['{foo:1, bar:2, ,}', 'unexpected token Operator(",") (1:16)\n | {foo:1, bar:2, ,}\n | ...............^'],
  [
    'foo ?? bar || baz',
    'Operator (||) and coalesce expressions (??) cannot be mixed. Wrap either by parentheses. (1:12)\n' +
      ' | foo ?? bar || baz\n | ...........^',
  ],
  ['0b15', 'bad number syntax: "0b15" (1:4)\n | 0b15\n | ...^'],
  ['0X10G', 'bad number syntax: "0X10G" (1:5)\n | 0X10G\n | ....^'],
  ['0o1E', 'invalid float literal: "0o1E" (1:1)\n | 0o1E\n | ^'],
  ['0b1E', 'invalid float literal: "0b1E" (1:1)\n | 0b1E\n | ^'],
  ['0b1E+6', 'bad number syntax: "0b1E+6" (1:6)\n | 0b1E+6\n | .....^'],
  ['1E', 'invalid float literal: "1E" (1:1)\n | 1E\n | ^'],
  ['1 not == [1, 2, 5]', 'unexpected token Operator("==") (1:7)\n | 1 not == [1, 2, 5]\n | ......^'],
  ['foo(1; 2; 3)', 'unexpected token Operator(";") (1:6)\n | foo(1; 2; 3)\n | .....^'],
  ['map(ls, 1; 2; 3)', 'wrap predicate with brackets { and } (1:10)\n | map(ls, 1; 2; 3)\n | .........^'],
  ['[1; 2; 3]', 'unexpected token Operator(";") (1:3)\n | [1; 2; 3]\n | ..^'],
  [
    '1 + if true { 2 } else { 3 }',
    'unexpected token Operator("if") (1:5)\n | 1 + if true { 2 } else { 3 }\n | ....^',
  ],
  [
    'if a { 1 } else b',
    'unexpected token Identifier("b") (1:17)\n | if a { 1 } else b\n | ................^',
  ],
  ['list | all(#,,)', 'unexpected token Operator(",") (1:14)\n | list | all(#,,)\n | .............^'],
]);

syntaxErrorTable('compile-time checks', [
  ['', 'unexpected token EOF (1:1)'],
  ['msg.a ==', 'unexpected token EOF (1:8)\n | msg.a ==\n | .......^'],
  ['foo()', 'unknown function foo (1:1)\n | foo()\n | ^'],
  [
    'msg.a > 1 && lenn(msg.b) > 0',
    'unknown function lenn (1:14)\n | msg.a > 1 && lenn(msg.b) > 0\n | .............^',
  ],
  ['len()', 'invalid number of arguments for len (expected 1, got 0) (1:1)\n | len()\n | ^'],
  ['trim()', 'invalid number of arguments for trim (expected 1 or 2, got 0) (1:1)\n | trim()\n | ^'],
  ['max()', 'invalid number of arguments for max (expected at least 1, got 0) (1:1)\n | max()\n | ^'],
  [
    '"x" | upper(1)',
    'invalid number of arguments for upper (expected 1, got 2) (1:7)\n | "x" | upper(1)\n | ......^',
  ],
  ['all(x)', 'expected at least 2 arguments (1:6)\n | all(x)\n | .....^'],
  ['#', 'unexpected token Operator("#") (1:1)\n | #\n | ^'],
  ['map(a, #foo)', 'unknown pointer #foo (1:8)\n | map(a, #foo)\n | .......^'],
  ['true.foo', 'unexpected token Operator(".") (1:5)\n | true.foo\n | ....^'],
  ['"abc', 'literal not terminated (1:5)\n | "abc\n | ....^'],
  ['"\\q"', 'invalid char escape (1:2)\n | "\\q"\n | .^'],
  ['1 @ 2', 'unrecognized character: "@" (1:3)\n | 1 @ 2\n | ..^'],
  ['/* x', 'unclosed comment (1:4)\n | /* x\n | ...^'],
  ['b"abc"', 'bytes literals are not supported (1:1)\n | b"abc"\n | ^'],
  ['99999999999999999999', 'integer literal is too large (1:1)\n | 99999999999999999999\n | ^'],
  ['a\n  + )', 'unexpected token Bracket(")") (2:5)\n |   + )\n | ....^'],
]);

test('a syntax error carries its reason and position', () => {
  assert.throws(
    () => compileExpression('msg.a >\n  (1 +'),
    (error: unknown) => {
      assert.ok(error instanceof ExprSyntaxError);
      assert.equal(error.reason, 'unexpected token EOF');
      assert.deepEqual(error.position, { offset: 13, line: 2, column: 6 });
      return true;
    },
  );
});

test('an invalid literal pattern fails at compile time', () => {
  assert.throws(
    () => compileExpression('msg.name matches "("'),
    (error: unknown) => error instanceof ExprSyntaxError && error.reason.startsWith('error parsing regexp:'),
  );
});

test('expr_test.go TestExpr_error: runtime errors point at the failing operation', () => {
  const env = { ArrayOfAny: [1, '2', 3, true] };
  const cases: [string, string][] = [
    [
      'filter(1..9, # > 9)[0]',
      'index out of range: 0 (array length is 0) (1:20)\n | filter(1..9, # > 9)[0]\n | ...................^',
    ],
    [
      'ArrayOfAny[-7]',
      'index out of range: -3 (array length is 4) (1:11)\n | ArrayOfAny[-7]\n | ..........^',
    ],
    [
      'reduce(10..1, # + #acc)',
      'reduce of empty array with no initial value (1:1)\n | reduce(10..1, # + #acc)\n | ^',
    ],
  ];
  for (const [source, message] of cases) {
    const compiled = compileExpression(source);
    assert.throws(
      () => compiled.evaluate(env),
      (error: unknown) => error instanceof ExprEvalError && error.message === message,
      source,
    );
  }
});

test('an evaluation error names the operation and its position', () => {
  const compiled = compileExpression('msg.temperature > 50 && msg.name.first == "A"');
  assert.throws(
    () => compiled.evaluate({ msg: { temperature: 60, name: 'Ada' } }),
    (error: unknown) => {
      assert.ok(error instanceof ExprEvalError);
      assert.equal(error.reason, 'cannot fetch first from string');
      assert.deepEqual(error.position, { offset: 33, line: 1, column: 34 });
      return true;
    },
  );
});

test('non-boolean operands of logic operators are errors, as expr-lang has no truthiness', () => {
  const cases: [string, string][] = [
    ['1 && true', 'operator && expects bool, got int'],
    ['true and missing', 'operator and expects bool, got nil'],
    ['not "x"', 'operator not expects bool, got string'],
    ['!missing', 'operator ! expects bool, got nil'],
    ['missing ? 1 : 2', 'condition expects bool, got nil'],
    ['1 + "a"', 'invalid operation: int + string'],
    ['"a" - "b"', 'invalid operation: string - string'],
    ['1 < "a"', 'invalid operation: int < string'],
    ['nil > 1', 'invalid operation: nil > int'],
    ['1.5 % 1', 'invalid operation: float % int'],
    ['1 % 0', 'integer divide by zero'],
    ['-"a"', 'invalid operation: - string'],
    ['"a" in "abc"', 'operator "in" not defined on string'],
    ['1 contains "a"', 'invalid operation: int contains string'],
    ['1 matches "a"', 'invalid operation: int matches string'],
    ['"a".."c"', 'invalid operation: string .. string'],
  ];
  for (const [source, reason] of cases) {
    assert.throws(
      () => compileExpression(source).evaluate({}),
      (error: unknown) => error instanceof ExprEvalError && error.reason === reason,
      source,
    );
  }
});
