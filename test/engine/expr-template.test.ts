// The shared `${expr}` template helper (RuleGo's el.NewTemplate): one `${expr}` keeps its type,
// mixed text renders each part, syntax errors are found when compiling.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExprEvalError } from '../../src/engine/expr/expr.ts';
import { compileExprTemplate, unwrapExpression } from '../../src/engine/expr-template.ts';

const env = { msg: { items: [1, 2, 3], name: 'aa', n: 2.5 }, metadata: { k: 'v' }, data: 'raw' };

test('a template that is one ${expr} evaluates to the value with its type', () => {
  assert.deepEqual(compileExprTemplate('${msg.items}').evaluate(env), [1, 2, 3]);
  assert.equal(compileExprTemplate(' ${len(msg.items) > 2} ').evaluate(env), true);
  assert.equal(compileExprTemplate('${msg.items}').render(env), '[1,2,3]');
});

test('mixed text renders each ${expr} as text, nil as empty', () => {
  const template = compileExprTemplate(
    'name=${upper(msg.name)} k=${metadata.k} n=${msg.n} none=${msg.nope}!',
  );
  assert.equal(template.isStatic, false);
  assert.equal(template.render(env), 'name=AA k=v n=2.5 none=!');
  assert.equal(template.evaluate(env), 'name=AA k=v n=2.5 none=!');
});

test('text without ${ is static and unchanged', () => {
  const template = compileExprTemplate('plain {text}');
  assert.equal(template.isStatic, true);
  assert.equal(template.render(env), 'plain {text}');
});

test('a syntax error is an invalid AppError naming where; an evaluation error throws ExprEvalError', () => {
  assert.throws(
    () => compileExprTemplate('a ${msg.items[} b', 'node "n1": range'),
    (error: Error & { kind?: string }) =>
      error.kind === 'invalid' && error.message.startsWith('node "n1": range: '),
  );
  assert.throws(() => compileExprTemplate('${data.x}').evaluate(env), ExprEvalError);
});

test('unwrapExpression removes ${} outside double quotes only', () => {
  assert.equal(unwrapExpression('${msg.a} > 5 && x == "${y}"'), 'msg.a > 5 && x == "${y}"');
});
