// Run logs of chains with `debugMode` nodes, kept by the engine (engine/run-log.ts).
import { notFound } from '../../core/errors.ts';
import type { RunLog, RunLogStore } from '../../engine/run-log.ts';

export class LogsService {
  constructor(private readonly runLogs: RunLogStore) {}

  /** Newest first; every chain's, or one chain's. */
  list(chainId: string | undefined): RunLog[] {
    return this.runLogs.list(chainId);
  }

  get(id: string): RunLog {
    const run = this.runLogs.get(id);
    if (!run) throw notFound(`run log "${id}" not found`);
    return run;
  }

  /** Deletes every run log, or one chain's; answers how many went. */
  clear(chainId: string | undefined): { deleted: number } {
    return { deleted: this.runLogs.clear(chainId) };
  }
}
