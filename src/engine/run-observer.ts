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
  /** Runs the run's work in the observer's context (a sub-agent's turn); absent otherwise. */
  enter?<T>(work: () => T): T;
}

export interface RunObserver {
  /** A run of a loaded chain starts; `parent` is the watch of the run that started it, if any. */
  chainStart(
    chainId: string,
    run: { turn: TurnContext; depth: number; isolated?: boolean | undefined },
    parent: RunWatch | undefined,
  ): RunWatch;
}
