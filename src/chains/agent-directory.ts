// What turns, the scheduler and channels need of the catalogue: find an agent and run it. They
// depend on this narrow interface, never on the catalogue's storage or its HTTP resources.
import type { RunOptions, RunResult } from '../engine/types.ts';
import type { ChainView } from './chain-view.ts';

export type AgentDeletedListener = (agentId: string) => Promise<void> | void;

export interface AgentDirectory {
  /** The agent's definition and status; an unknown agent is a 404. */
  get(agentId: string): ChainView;
  /** Throws unless the agent can take a turn: unknown is a 404, not loaded a 409. */
  require(agentId: string): void;
  list(): ChainView[];
  /** Runs a loaded chain (an agent or a rule chain) once with the given message data. */
  run(
    chainId: string,
    data: string | object,
    metadata: Record<string, string>,
    options: RunOptions,
  ): Promise<RunResult>;
  /** Called after an agent is deleted, to drop what belongs to it (sessions, tasks, workspace). */
  onDeleted(listener: AgentDeletedListener): void;
}
