// A chain run's log as GET /api/v1/logs/runs answers it (see run-log.ts), and the data types of a
// RuleGo message. Node-free: the web UI's typecheck reads these types.

/** How a message's `data` string is to be read. */
export type DataType = 'JSON' | 'TEXT' | 'BINARY';

/** A RuleGo message. `data` is always a string (JSON text for dataType JSON). */
export interface RuleMessage {
  id: string;
  ts: number;
  type: string;
  dataType: DataType;
  data: string;
  metadata: Record<string, string>;
}

/** A message as logged: data cut to MAX_LOGGED_DATA characters. */
export interface LoggedMessage extends RuleMessage {
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
  /** Node entries left out once the run reached its limits (MAX_NODE_LOGS, MAX_RUN_BYTES). */
  droppedLogs: number;
}
