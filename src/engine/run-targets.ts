// Where a node's output goes in a run: the connections of its relation (or of its `otherwise`), and
// what a join records of a branch that reaches it.
import type { ChainNode } from './chain.ts';
import type { JoinArrival, NodeOutput } from './types.ts';

/** What a join records of a branch: who sent it, and its errorMsg when it came on Failure. */
export function arrivalOf(nodeId: string, output: NodeOutput): Omit<JoinArrival, 'message'> {
  if (output.relation !== 'Failure') return { nodeId };
  return { nodeId, error: output.message.metadata['errorMsg'] ?? 'failure' };
}

/**
 * The nodes an output goes to: a relation with no connection falls back to the output's `otherwise`
 * (RuleGo's TellNextOrElse). The relation keeps its own name, in events and logs, as RuleGo logs it.
 */
export function targetsOf(node: ChainNode, output: NodeOutput): ChainNode[] | undefined {
  const targets = node.next.get(output.relation);
  if (targets || output.otherwise === undefined) return targets;
  return node.next.get(output.otherwise);
}
