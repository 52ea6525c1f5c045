// The NodeContext a node sees during one call, over the run that makes the call.
import type { CompiledChain } from './chain.ts';
import type { RunBudget } from './run-budget.ts';
import type { RunLogBuilder } from './run-log.ts';
import type { RunWatch } from './run-observer.ts';
import type { NodeContext, NodeOutput, RuleMessage, RunEvent, RunResult, TurnContext } from './types.ts';

/** What a run shares with the runs it starts. Depth 0 is a caller's run; only it reports run-end. */
export interface RunScope {
  /** Shared by the top-level run and every run it starts; it holds the run tree's abort signal. */
  budget: RunBudget;
  onEvent: ((event: RunEvent) => void) | undefined;
  turn: TurnContext;
  depth: number;
  /** The run log a body run (for, fork bodies) adds to: its chain's run, not a run of its own. */
  runLog?: RunLogBuilder | undefined;
  /** The node outputs a body run shares with the run of its chain (RuleGo's node output cache). */
  nodeOutputs?: Map<string, RuleMessage> | undefined;
  /** The observer's watch of the run (a body run shares its chain run's). */
  watch?: RunWatch | undefined;
  /** A nested run whose events reach no caller (a sub-agent's turn). */
  isolated?: boolean | undefined;
}

/** The parts of a run that a node context reaches. */
export interface ContextHost {
  readonly chain: CompiledChain;
  readonly scope: RunScope;
  emit(event: RunEvent): void;
  runChain(
    chainId: string,
    message: RuleMessage,
    turn: TurnContext | undefined,
    isolated?: boolean,
  ): Promise<RunResult>;
  runNode(nodeId: string, message: RuleMessage): Promise<RunResult>;
  callNode(nodeId: string, message: RuleMessage): Promise<NodeOutput[]>;
  refNode(chainId: string | undefined, nodeId: string, message: RuleMessage, tellChain: boolean): Promise<NodeOutput[]>;
  readonly nodeOutputs: ReadonlyMap<string, RuleMessage>;
}

/** The NodeContext of one node call: one small object per hop instead of several closures. */
export class RunNodeContext implements NodeContext {
  readonly chainId: string;
  readonly turn: TurnContext;
  readonly depth: number;

  constructor(
    private readonly run: ContextHost,
    readonly nodeId: string,
  ) {
    this.chainId = run.chain.id;
    this.turn = run.scope.turn;
    this.depth = run.scope.depth;
  }

  get signal(): AbortSignal {
    return this.run.scope.budget.signal;
  }

  emit(event: RunEvent): void {
    this.run.emit(event);
  }

  runChain(
    chainId: string,
    message: RuleMessage,
    options?: { turn?: TurnContext; isolated?: boolean },
  ): Promise<RunResult> {
    return this.run.runChain(chainId, message, options?.turn, options?.isolated);
  }

  runNode(nodeId: string, message: RuleMessage): Promise<RunResult> {
    return this.run.runNode(nodeId, message);
  }

  callNode(nodeId: string, message: RuleMessage): Promise<NodeOutput[]> {
    return this.run.callNode(nodeId, message);
  }

  refNode(chainId: string | undefined, nodeId: string, message: RuleMessage, tellChain: boolean): Promise<NodeOutput[]> {
    return this.run.refNode(chainId, nodeId, message, tellChain);
  }

  nodeOutput(nodeId: string): RuleMessage | undefined {
    return this.run.nodeOutputs.get(nodeId);
  }

  async checkpoint(): Promise<void> {
    const { budget } = this.run.scope;
    const turn = budget.spend();
    if (turn) await turn;
    if (budget.aborted) throw budget.reason;
  }
}
