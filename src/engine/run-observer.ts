// What the engine tells an observer (metrics, traces, live chain subscriptions) about its runs:
// each run's start and end, each node's start and end, and the events of isolated runs (a
// sub-agent's turn). Optional: an engine without an observer does none of this work.
import type { RunEvent, RunResult, TurnContext } from './types.ts';

/** Called once per node run; ends it with the relations taken and the error of a Failure. */
export type NodeRunEnd = (relations: string[], error: string | undefined) => void;

export interface RunWatch {
  node(nodeId: string, nodeType: string): NodeRunEnd;
  /** Every event of the run, including those of isolated runs that reach no caller. */
  event(event: RunEvent): void;
  end(result: RunResult | undefined, thrown?: unknown): void;
  /**
   * The turn context the run's work sees, when the observer gives the run a caller of its own (a
   * sub-agent's run is a turn of that agent); absent otherwise.
   */
  turnContext?(turn: TurnContext): TurnContext;
}

export interface RunObserver {
  /** A run of a loaded chain starts; `parent` is the watch of the run that started it, if any. */
  chainStart(
    chainId: string,
    run: { turn: TurnContext; depth: number; isolated?: boolean | undefined },
    parent: RunWatch | undefined,
  ): RunWatch;
}
