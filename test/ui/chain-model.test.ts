// The graph editor's model of a chain (web/src/pages/rules/graph/chain-model.ts), without a browser:
// positions, edits that keep unknown keys, first node bookkeeping and where a server error points.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addNode,
  connect,
  errorTarget,
  layout,
  moveNodes,
  parseChain,
  removeParts,
  updateNode,
  type ChainDoc,
} from '../../web/src/pages/rules/graph/chain-model.ts';

function chain(): ChainDoc {
  const parsed = parseChain(
    JSON.stringify({
      ruleChain: { id: 'c', name: 'C', extra: 1 },
      metadata: {
        firstNodeIndex: 1,
        nodes: [
          { id: 'a', type: 'log', additionalInfo: { layoutX: 500, layoutY: 20, description: 'kept' } },
          { id: 'b', type: 'jsFilter' },
          { id: 'c', type: 'log' },
        ],
        connections: [{ fromId: 'b', toId: 'a', type: 'True' }],
        endpoints: [{ id: 'e', type: 'http', routers: [] }],
      },
    }),
  );
  assert.ok('doc' in parsed);
  return parsed.doc;
}

describe('graph chain model', () => {
  it('draws stored positions as they are and lays out the others from the first node', () => {
    const points = layout(chain());
    assert.deepEqual(points.get('a'), { x: 500, y: 20 });
    // b is first (firstNodeIndex 1): column 0; c is out of reach: the column after the last.
    assert.deepEqual(points.get('b'), { x: 40, y: 40 });
    assert.equal(points.get('c')?.x, 40 + 2 * 260);
  });

  it('writes positions as RuleGo layoutX / layoutY, keeping the rest of additionalInfo', () => {
    const moved = moveNodes(chain(), new Map([['a', { x: 10.4, y: 99.6 }]]));
    assert.deepEqual(moved.metadata.nodes[0]?.additionalInfo, {
      layoutX: 10,
      layoutY: 100,
      description: 'kept',
    });
    const added = addNode(moved, { id: 'd', type: 'log' }, { x: 1, y: 2 });
    assert.deepEqual(added.metadata.nodes[3]?.additionalInfo, { layoutX: 1, layoutY: 2 });
    // Keys the graph does not edit pass through.
    assert.equal(added.ruleChain['extra'], 1);
    assert.equal((added.metadata['endpoints'] as unknown[]).length, 1);
  });

  it('renaming a node renames it in its connections; removing one keeps the first node first', () => {
    const renamed = updateNode(chain(), 'a', { id: 'z', type: 'log' });
    assert.deepEqual(renamed.metadata.connections, [{ fromId: 'b', toId: 'z', type: 'True' }]);
    const removed = removeParts(renamed, new Set(['z']), new Set());
    assert.deepEqual(removed.metadata.connections, []);
    assert.equal(removed.metadata.nodes[removed.metadata.firstNodeIndex ?? 0]?.id, 'b');
    assert.equal(removed.metadata.firstNodeIndex, undefined, 'b is now the first in the list');
  });

  it('connects once per relation', () => {
    const twice = connect(connect(chain(), 'b', 'c', 'False'), 'b', 'c', 'False');
    assert.equal(twice.metadata.connections?.length, 2);
  });

  it('finds the node, field and short message of a server error', () => {
    const target = errorTarget(
      'rule chain "c": node "b": configuration.jsScript: expected string, received undefined',
    );
    assert.deepEqual(target, {
      kind: 'node',
      nodeId: 'b',
      field: 'jsScript',
      message: 'rule chain "c": node "b": configuration.jsScript: expected string, received undefined',
      detail: 'configuration.jsScript: expected string, received undefined',
      fieldDetail: 'expected string, received undefined',
    });
    const secret = errorTarget(
      'metadata.nodes.[id=m].configuration.password: "***" stands for a stored secret',
    );
    assert.equal(secret?.kind === 'node' && secret.field, 'password');
    assert.deepEqual(errorTarget('rule chain "c": connection "a" -> "zz": unknown node'), {
      kind: 'connection',
      fromId: 'a',
      toId: 'zz',
      message: 'rule chain "c": connection "a" -> "zz": unknown node',
    });
  });

  it('refuses to draw what is not a chain', () => {
    assert.ok('error' in parseChain('{'));
    assert.ok('error' in parseChain('{"metadata": {}}'));
    assert.ok('error' in parseChain('{"ruleChain": {"id": "x"}, "metadata": {"nodes": [{"type": "log"}]}}'));
  });
});
