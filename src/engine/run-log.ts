// Run logs, as RuleGo's server keeps them: for a chain (or single nodes) with `debugMode: true`, each
// run records what every such node received and sent on (message, relations, error, timing), so a
// chain can be checked node by node through GET /api/v1/logs/runs. They are kept in memory, newest
// first, within a fixed budget: run logs are a debugging aid, not an audit trail.
import { newId } from '../core/ids.ts';
import type { RuleMessage } from './types.ts';

/** A message as logged: data cut to MAX_LOGGED_DATA characters. */
export interface LoggedMessage {
  id: string;
  ts: number;
  type: string;
  dataType: RuleMessage['dataType'];
  data: string;
  metadata: Record<string, string>;
  /** Present when `data` was cut. */
  truncated?: true;
}

export interface NodeLog {
  nodeId: string;
  nodeType: string;
  inMsg: LoggedMessage;
  /** The messages the node sent on, each with its relation. */
  outMsgs: Array<{ relationType: string; msg: LoggedMessage }>;
  relationTypes: string[];
  err?: string;
  startTs: number;
  endTs: number;
}

export interface RunLog {
  id: string;
  chainId: string;
  startTs: number;
  endTs: number;
  outcome: 'success' | 'failure';
  error?: string;
  /** The logged nodes, in the order they finished. */
  logs: NodeLog[];
}

export const MAX_LOGGED_DATA = 16 * 1024;
/** Logged nodes of one run beyond this are counted, not kept (a `for` node can run thousands). */
export const MAX_NODE_LOGS = 500;

export function logMessage(message: RuleMessage): LoggedMessage {
  const cut = message.data.length > MAX_LOGGED_DATA;
  return {
    id: message.id,
    ts: message.ts,
    type: message.type,
    dataType: message.dataType,
    data: cut ? message.data.slice(0, MAX_LOGGED_DATA) : message.data,
    metadata: { ...message.metadata },
    ...(cut ? { truncated: true as const } : {}),
  };
}

/** The log of one run while it runs. */
export class RunLogBuilder {
  readonly id = newId();
  readonly startTs = Date.now();
  readonly logs: NodeLog[] = [];
  dropped = 0;

  constructor(readonly chainId: string) {}

  add(log: NodeLog): void {
    if (this.logs.length < MAX_NODE_LOGS) this.logs.push(log);
    else this.dropped += 1;
  }

  finish(outcome: RunLog['outcome'], error: string | undefined): RunLog {
    return {
      id: this.id,
      chainId: this.chainId,
      startTs: this.startTs,
      endTs: Date.now(),
      outcome,
      ...(error === undefined ? {} : { error }),
      logs: this.logs,
    };
  }
}

/** The most recent run logs of an engine, newest first, at most `limit` of them. */
export class RunLogStore {
  private runs: RunLog[] = [];

  constructor(private readonly limit = 200) {}

  add(run: RunLog): void {
    this.runs.unshift(run);
    if (this.runs.length > this.limit) this.runs.length = this.limit;
  }

  list(chainId?: string): RunLog[] {
    return chainId === undefined ? [...this.runs] : this.runs.filter((run) => run.chainId === chainId);
  }

  get(id: string): RunLog | undefined {
    return this.runs.find((run) => run.id === id);
  }

  /** Removes the logs of one chain, or all; answers how many were removed. */
  clear(chainId?: string): number {
    const before = this.runs.length;
    this.runs = chainId === undefined ? [] : this.runs.filter((run) => run.chainId !== chainId);
    return before - this.runs.length;
  }
}
