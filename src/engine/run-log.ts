// Run logs, as RuleGo's server keeps them: for a chain (or single nodes) with `debugMode: true`, each
// run records what every such node received and sent on (message, relations, error, timing), so a
// chain can be checked node by node through GET /api/v1/logs/runs. They are kept in memory, newest
// first, within a byte budget (oldest runs go first): run logs are a debugging aid, not an audit trail.
import { newId } from '../core/ids.ts';
import type { LoggedMessage, NodeLog, RunLog } from './run-log-types.ts';
import type { RuleMessage } from './types.ts';

export type { LoggedMessage, NodeLog, RunLog } from './run-log-types.ts';

export const MAX_LOGGED_DATA = 16 * 1024;
/** Metadata values are cut to this many characters. */
export const MAX_LOGGED_METADATA_VALUE = 1024;
/** Logged nodes of one run beyond this are counted, not kept (a `for` node can run thousands). */
export const MAX_NODE_LOGS = 500;
/** The most one run's log may hold, roughly, in characters of logged text. */
export const MAX_RUN_BYTES = 2 * 1024 * 1024;
/** The most the store keeps, roughly, in characters of logged text. */
export const MAX_STORE_BYTES = 32 * 1024 * 1024;

export function logMessage(message: RuleMessage): LoggedMessage {
  let cut = message.data.length > MAX_LOGGED_DATA;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.metadata)) {
    if (value.length > MAX_LOGGED_METADATA_VALUE) cut = true;
    metadata[key.slice(0, MAX_LOGGED_METADATA_VALUE)] = value.slice(0, MAX_LOGGED_METADATA_VALUE);
  }
  return {
    id: message.id,
    ts: message.ts,
    type: message.type,
    dataType: message.dataType,
    data: message.data.slice(0, MAX_LOGGED_DATA),
    metadata,
    ...(cut ? { truncated: true as const } : {}),
  };
}

function messageSize(message: LoggedMessage): number {
  let size = 200 + message.data.length;
  for (const [key, value] of Object.entries(message.metadata)) size += key.length + value.length;
  return size;
}

function nodeLogSize(log: NodeLog): number {
  let size = 200 + messageSize(log.inMsg) + (log.err?.length ?? 0);
  for (const out of log.outMsgs) size += messageSize(out.msg);
  return size;
}

/** The log of one run while it runs; once finished it takes no more entries. */
export class RunLogBuilder {
  readonly id = newId();
  readonly startTs = Date.now();
  private readonly logs: NodeLog[] = [];
  private dropped = 0;
  private bytes = 0;
  private finished = false;

  constructor(readonly chainId: string) {}

  /** Wants the entry of a node that is about to run (false once the run is full or finished). */
  get accepting(): boolean {
    return !this.finished && this.logs.length < MAX_NODE_LOGS && this.bytes < MAX_RUN_BYTES;
  }

  add(log: NodeLog): void {
    // A node still working when its run settled (aborted, timed out) is not part of the run's log.
    if (this.finished) return;
    if (!this.accepting) {
      this.dropped += 1;
      return;
    }
    this.logs.push(log);
    this.bytes += nodeLogSize(log);
  }

  /** Counts an entry that was not even built (the run was already full). */
  skip(): void {
    if (!this.finished) this.dropped += 1;
  }

  finish(outcome: RunLog['outcome'], error: string | undefined): { run: RunLog; bytes: number } {
    this.finished = true;
    const run: RunLog = {
      id: this.id,
      chainId: this.chainId,
      startTs: this.startTs,
      endTs: Date.now(),
      outcome,
      ...(error === undefined ? {} : { error: error.slice(0, MAX_LOGGED_DATA) }),
      logs: [...this.logs],
      droppedLogs: this.dropped,
    };
    return { run, bytes: this.bytes + 200 };
  }
}

/** The most recent run logs of an engine, newest first: at most `limit` runs and `maxBytes` of text. */
export class RunLogStore {
  private runs: Array<{ run: RunLog; bytes: number }> = [];
  private bytes = 0;

  constructor(
    private readonly limit = 200,
    private readonly maxBytes = MAX_STORE_BYTES,
  ) {}

  add(entry: { run: RunLog; bytes: number }): void {
    this.runs.unshift(entry);
    this.bytes += entry.bytes;
    // The newest run always stays, even alone over the budget (MAX_RUN_BYTES bounds it).
    while (this.runs.length > 1 && (this.runs.length > this.limit || this.bytes > this.maxBytes)) {
      const oldest = this.runs.pop();
      if (oldest) this.bytes -= oldest.bytes;
    }
  }

  list(chainId?: string): RunLog[] {
    const runs = this.runs.map((entry) => entry.run);
    return chainId === undefined ? runs : runs.filter((run) => run.chainId === chainId);
  }

  get(id: string): RunLog | undefined {
    return this.runs.find((entry) => entry.run.id === id)?.run;
  }

  /** Removes the logs of one chain, or all; answers how many were removed. */
  clear(chainId?: string): number {
    const kept = chainId === undefined ? [] : this.runs.filter((entry) => entry.run.chainId !== chainId);
    const removed = this.runs.length - kept.length;
    this.runs = kept;
    this.bytes = kept.reduce((sum, entry) => sum + entry.bytes, 0);
    return removed;
  }
}
