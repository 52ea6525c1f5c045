// A finished sub-run (ref with tellChain, a ruleChainConnections target) as node outputs: each end
// with the relation it ended on, a Failure carrying its errorMsg, as RuleGo's onEnd callbacks see them.
import type { NodeOutput, RunResult } from './types.ts';

export function outputsOfRun(result: RunResult): NodeOutput[] {
  const ends = result.ends ?? [];
  if (ends.length === 0) {
    if (result.outcome === 'failure') throw new Error(result.error ?? 'the run failed');
    return [];
  }
  return ends.map((end) => {
    const output: NodeOutput = { relation: end.relation, message: end.message };
    const error = end.relation === 'Failure' ? end.message.metadata['errorMsg'] : undefined;
    return error === undefined ? output : { ...output, error };
  });
}
