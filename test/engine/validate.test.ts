import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { chain, createEngine } from './helpers.ts';

async function rejection(definition: unknown): Promise<AppError> {
  const engine = createEngine();
  try {
    await engine.validate(definition);
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.kind, 'invalid');
    assert.equal(error.status, 400);
    return error;
  } finally {
    await engine.close();
  }
  assert.fail('validate accepted a broken chain');
}

const filter = (id: string) => ({ id, type: 'jsFilter', configuration: { jsScript: 'return true;' } });

test('a valid chain validates and is not loaded by validation', async () => {
  const engine = createEngine();
  const parsed = await engine.validate(
    chain('c1', [filter('a'), { id: 'b', type: 'end' }], [['a', 'True', 'b']]),
  );
  assert.equal(parsed.ruleChain.id, 'c1');
  assert.equal(engine.isLoaded('c1'), false);
  await engine.close();
});

test('duplicate node ids are rejected', async () => {
  const error = await rejection(chain('c1', [filter('a'), { id: 'a', type: 'end' }]));
  assert.equal(error.message, 'rule chain "c1": duplicate node id "a"');
});

test('a connection to a node that does not exist is rejected', async () => {
  const error = await rejection(chain('c1', [filter('a')], [['a', 'True', 'ghost']]));
  assert.equal(error.message, 'rule chain "c1": connection "a" -> "ghost": unknown node "ghost"');
});

test('a connection from a node that does not exist is rejected', async () => {
  const error = await rejection(chain('c1', [filter('a')], [['ghost', 'True', 'a']]));
  assert.equal(error.message, 'rule chain "c1": connection "ghost" -> "a": unknown node "ghost"');
});

test('an unknown node type is rejected', async () => {
  const error = await rejection(chain('c1', [filter('n1'), { id: 'n2', type: 'foo' }]));
  assert.equal(error.message, 'rule chain "c1": node "n2": unknown node type "foo"');
});

test('a configuration its type rejects names the field', async () => {
  const error = await rejection(
    chain('c1', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: { text: 'x' } } }]),
  );
  assert.match(error.message, /^rule chain "c1": node "f": configuration\.jsScript: must be a string/);
  const nested = await rejection(
    chain('c1', [{ id: 's', type: 'switch', configuration: { cases: [{ case: 'true' }] } }]),
  );
  assert.match(nested.message, /^rule chain "c1": node "s": configuration\.cases\[0\]\.then: /);
});

test('a script syntax error is rejected at validation', async () => {
  const error = await rejection(
    chain('c1', [{ id: 'f', type: 'jsFilter', configuration: { jsScript: 'return (' } }]),
  );
  assert.match(error.message, /^rule chain "c1": node "f": SyntaxError: /);
});

test('firstNodeIndex out of range is rejected', async () => {
  const definition = chain('c1', [filter('a'), { id: 'b', type: 'end' }]);
  const error = await rejection({ ...definition, metadata: { ...definition.metadata, firstNodeIndex: 2 } });
  assert.equal(error.message, 'rule chain "c1": firstNodeIndex 2 is out of range (the chain has 2 nodes)');
});

test('a chain without nodes is accepted, as RuleGo accepts it', async () => {
  const engine = createEngine();
  try {
    await engine.validate(chain('c1', []));
  } finally {
    await engine.close();
  }
});

test('a cycle is rejected with its path', async () => {
  const error = await rejection(
    chain(
      'c1',
      [filter('a'), filter('b'), filter('c')],
      [
        ['a', 'True', 'b'],
        ['b', 'True', 'c'],
        ['c', 'False', 'b'],
      ],
    ),
  );
  assert.equal(error.message, 'rule chain "c1": cycle "b" -> "c" -> "b"');
});

test('a self loop is a cycle', async () => {
  const error = await rejection(chain('c1', [filter('a')], [['a', 'False', 'a']]));
  assert.equal(error.message, 'rule chain "c1": cycle "a" -> "a"');
});

test('a for body naming an unknown node, or leading back to the for, is rejected', async () => {
  const missing = await rejection(
    chain('c1', [{ id: 'loop', type: 'for', configuration: { range: '1..2', do: 'nope' } }]),
  );
  assert.equal(missing.message, 'rule chain "c1": node "loop": refers to unknown node "nope"');
  const back = await rejection(
    chain(
      'c1',
      [{ id: 'loop', type: 'for', configuration: { range: '1..2', do: 'body' } }, filter('body')],
      [['body', 'True', 'loop']],
    ),
  );
  assert.equal(back.message, 'rule chain "c1": cycle "loop" -> "body" -> "loop"');
});

test('load rejects the same errors as validate', async () => {
  const engine = createEngine();
  await assert.rejects(engine.load(chain('c1', [{ id: 'n2', type: 'foo' }])), {
    name: 'AppError',
    message: 'rule chain "c1": node "n2": unknown node type "foo"',
  });
  assert.equal(engine.isLoaded('c1'), false);
  await engine.close();
});
