import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { parseRuleChain } from '../../src/engine/dsl.ts';

const ruleGoFile = {
  ruleChain: {
    id: 'chain_01',
    name: 'Telemetry',
    root: true,
    debugMode: false,
    configuration: { vars: { region: 'eu' }, onlyRuleGoKnows: 1 },
    additionalInfo: { category: 'agents', layoutX: 280, inputSchema: { type: 'object' } },
    futureKey: 'kept',
  },
  metadata: {
    firstNodeIndex: 0,
    nodes: [
      {
        id: 's1',
        type: 'jsFilter',
        name: 'filter',
        debugMode: true,
        configuration: { jsScript: 'return true;', extra: [1, 2] },
        additionalInfo: { position: { x: 10, y: 20 }, description: 'first' },
        editorOnly: 'kept',
      },
      { id: 's2', type: 'end' },
    ],
    connections: [{ fromId: 's1', toId: 's2', type: 'True', label: 'yes', color: 'green' }],
    ruleChainConnections: [],
  },
  topLevelUnknown: { nested: true },
};

test('a RuleGo file round-trips with every unknown key kept', () => {
  const parsed = parseRuleChain(structuredClone(ruleGoFile));
  assert.deepEqual(JSON.parse(JSON.stringify(parsed)), ruleGoFile);
});

test('a chain without connections parses and stays without them', () => {
  const parsed = parseRuleChain({
    ruleChain: { id: 'c', name: 'c' },
    metadata: { nodes: [{ id: 'a', type: 'end' }] },
  });
  assert.equal('connections' in parsed.metadata, false);
});

test('a bad node id is rejected naming the chain and the field path', () => {
  const bad = structuredClone(ruleGoFile);
  bad.metadata.nodes[1] = { id: 'has space', type: 'end' };
  assert.throws(
    () => parseRuleChain(bad),
    (error: unknown) =>
      error instanceof AppError &&
      error.kind === 'invalid' &&
      error.message ===
        'rule chain "chain_01": metadata.nodes[1].id: must be 1-64 letters, digits, "-" or "_"',
  );
});

test('a chain id longer than 64 characters is rejected', () => {
  assert.throws(
    () => parseRuleChain({ ruleChain: { id: 'x'.repeat(65), name: 'n' }, metadata: { nodes: [] } }),
    /^AppError: invalid rule chain: ruleChain\.id: must be 1-64 letters/,
  );
});

test('non-object input is rejected; non-string vars become text, as RuleGo reads them', () => {
  assert.throws(
    () => parseRuleChain('nope'),
    /^AppError: invalid rule chain: must be an object \(got string\)$/,
  );
  const parsed = parseRuleChain({
    ruleChain: { id: 'c', name: 'c', configuration: { vars: { port: 80, on: true } } },
    metadata: { nodes: [] },
  });
  assert.deepEqual(parsed.ruleChain.configuration?.vars, { port: '80', on: 'true' });
  assert.throws(
    () =>
      parseRuleChain({
        ruleChain: { id: 'c', name: 'c' },
        metadata: { nodes: [{ id: 'a', type: 'end' }], connections: [{ fromId: 'a', toId: 'b' }] },
      }),
    /rule chain "c": metadata\.connections\[0\]\.type: /,
  );
});
