// What the main thread and a script worker say to each other (script-pool.ts, script-thread.ts and
// script-worker.ts). Every request but `dispose` gets exactly one reply, in order, so the main thread
// matches replies to requests by position; `seq` numbers the requests of one worker from 1.

export interface CompileRequest {
  type: 'compile';
  seq: number;
  scriptId: number;
  source: string;
  timeoutMs: number;
  memoryBytes: number;
  compileTimeoutMs: number;
}

/** Several calls in one message: call i has sequence number `seq + i`. */
export interface RunRequest {
  type: 'run';
  seq: number;
  scriptIds: number[];
  inputs: string[];
}

export interface DisposeRequest {
  type: 'dispose';
  scriptId: number;
}

export type WorkerRequest = CompileRequest | RunRequest | DisposeRequest;

export type WorkerReply =
  /** Sent once, when QuickJS is loaded and requests are being served. */
  | { type: 'ready' }
  | { type: 'compiled'; seq: number; error?: string }
  /**
   * Results of consecutive calls of a run request, from number `seq` on (a request's results may come
   * in several parts): `outputs[i]` is a result, or an error message when i is listed in `failed`.
   */
  | { type: 'ran'; seq: number; outputs: string[]; failed: number[] };

/**
 * The progress board a worker shares with its watchdog: the sequence number of the request it is
 * running (0 when idle) and that request's deadline in ms since the epoch. The worker writes the
 * deadline first and then the number with a sequentially consistent store, so a watchdog that
 * reads the number first never pairs it with an older request's deadline.
 */
export interface ProgressBoard {
  running: Int32Array;
  deadline: Float64Array;
}

export const PROGRESS_BYTES = 16;

export function progressBoard(buffer: SharedArrayBuffer): ProgressBoard {
  return { running: new Int32Array(buffer, 0, 1), deadline: new Float64Array(buffer, 8, 1) };
}
