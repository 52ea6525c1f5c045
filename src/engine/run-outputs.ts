// A finished sub-run (ref with tellChain, a ruleChainConnections target) as node outputs: each end
// with the relation it ended on, a Failure carrying its errorMsg, as RuleGo's onEnd callbacks see them.
import type { NodeOutput, RunResult } from './types.ts';

export function outputsOfRun(result: RunResult): NodeOutput[] {
  const ends = result.ends ?? [];
  if (ends.length === 0) {
    if (result.outcome === 'failure') throw runFailure(result, 'the run failed');
    return [];
  }
  return ends.map((end) => {
    const output: NodeOutput = { relation: end.relation, message: end.message };
    const error = end.relation === 'Failure' ? end.message.metadata['errorMsg'] : undefined;
    if (error === undefined) return output;
    return { ...output, error, ...(end.cause !== undefined ? { cause: end.cause } : {}) };
  });
}

/**
 * A failed sub-run as the error its caller throws: what the failing node threw (an AppError keeps
 * its kind, and so the answer's status), else an Error with the run's errorMsg.
 */
export function runFailure(result: RunResult, fallback: string): Error {
  const cause = result.failure?.cause;
  return cause instanceof Error ? cause : new Error(result.error ?? fallback);
}
