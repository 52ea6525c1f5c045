// What a chain run (run.ts) needs from its engine: running other chains and nodes, the join time
// limit, and keeping the log of a finished run.
import type { CompiledChain, ChainNode } from './chain.ts';
import type { RunScope } from './run-context.ts';
import type { RunLog } from './run-log.ts';
import type { NodeOutput, RuleMessage, RunResult } from './types.ts';

/** What a run needs from its engine. */
export interface RunHost {
  readonly joinTimeoutMs: number;
  runChain(chainId: string, message: RuleMessage, scope: RunScope): Promise<RunResult>;
  runFrom(chain: CompiledChain, node: ChainNode, message: RuleMessage, scope: RunScope): Promise<RunResult>;
  /** A node of another loaded chain, alone or with what follows it (the `ref` node). */
  runChainNode(
    chainId: string,
    nodeId: string,
    msg: RuleMessage,
    scope: RunScope,
    all: boolean,
  ): Promise<NodeOutput[]>;
  /** Keeps the log of a finished run of a chain with logged nodes. */
  recordRun(log: { run: RunLog; bytes: number }): void;
}
