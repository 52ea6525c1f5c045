// One script worker thread as the main thread sees it: the requests it has not answered yet, a
// watchdog that terminates it when a request overruns its deadline, and its replacement.
//
// When the worker is ended (watchdog) or dies (out of memory, a crash), the request it was running
// fails with the reason; every other unanswered request is not the culprit and is replayed: calls go
// back to the pool's queue (they may run on another worker), compiles go to the replacement, which
// first recompiles every script of the pool. A worker that dies before it is ready fails everything
// it holds and is not restarted until it is needed again, so a broken install cannot spin.
import type { Worker } from 'node:worker_threads';
import { startWorker, type WorkerEntry } from '../../core/worker-entry.ts';
import type { ResourceLimits } from 'node:worker_threads';
import { ScriptError } from './script-error.ts';
import type { PendingCall } from './pending-call.ts';
import { PROGRESS_BYTES, progressBoard } from './script-protocol.ts';
import type { ProgressBoard, WorkerReply, WorkerRequest } from './script-protocol.ts';

export interface ScriptSource {
  source: string;
  timeoutMs: number;
  memoryBytes: number;
  compileTimeoutMs: number;
}

/** What a thread needs from its pool. */
export interface ThreadHost {
  /** Every live script, to compile on a replacement worker. */
  readonly scripts: ReadonlyMap<number, ScriptSource>;
  /** Calls a replaced worker never answered; they run again elsewhere. */
  requeue(calls: PendingCall[]): void;
  /** The thread can take a batch of calls now (a batch was answered, or the worker became ready). */
  drained(): void;
  /** A worker failed to start: calls waiting for one should fail with `error` if no other can run them. */
  failedToStart(error: ScriptError): void;
}

interface Compile {
  kind: 'compile';
  scriptId: number;
  timeoutMs: number;
  resolve(): void;
  reject(error: unknown): void;
}
type Request = Compile | PendingCall;

const noop = (): void => undefined;

export class ScriptThread {
  private worker: Worker | undefined;
  private board: ProgressBoard | undefined;
  private ready = false;
  private lastError: Error | undefined;
  /** Requests sent and not answered, in order; the first has sequence number `firstSeq`. */
  private unanswered: Request[] = [];
  private firstSeq = 1;
  private nextSeq = 1;
  /** Calls of the batch in flight not answered yet (0: the thread can take a batch). */
  private batchLeft = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly compiling = new Map<number, Promise<void>>();

  constructor(
    private readonly host: ThreadHost,
    private readonly entry: WorkerEntry,
    private readonly graceMs: number,
    private readonly resourceLimits: ResourceLimits,
  ) {}

  /** True when it has a worker (ready or starting). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** True when it can take a batch of calls now: its worker is ready and holds no batch. */
  get free(): boolean {
    return this.ready && this.batchLeft === 0;
  }

  /** Starts a worker, which compiles every script of the pool, unless one runs. */
  launch(): void {
    if (!this.worker) this.start(new Map());
  }

  /** Compiles a script of the pool on this thread (starting the worker if needed). */
  compile(scriptId: number): Promise<void> {
    this.launch();
    return this.compiling.get(scriptId) ?? this.sendCompile(scriptId, undefined);
  }

  run(calls: PendingCall[]): void {
    this.launch();
    const scriptIds: number[] = [];
    const inputs: string[] = [];
    for (const call of calls) {
      scriptIds.push(call.scriptId);
      inputs.push(call.input);
    }
    this.batchLeft = calls.length;
    this.send({ type: 'run', seq: this.nextSeq, scriptIds, inputs }, calls);
  }

  dispose(scriptId: number): void {
    this.worker?.postMessage({ type: 'dispose', scriptId } satisfies WorkerRequest);
  }

  /** Ends the worker; unanswered requests fail with `error`. */
  async close(error: ScriptError): Promise<void> {
    const worker = this.stop();
    for (const request of this.takeUnanswered()) request.reject(error);
    if (worker) await worker.terminate();
  }

  /**
   * Starts a worker and compiles every script of the pool on it but `skipped` (one whose compile just
   * failed); `carried` are compiles a replaced worker never answered, settled by the new answer.
   */
  private start(carried: Map<number, Compile>, skipped?: number): void {
    const buffer = new SharedArrayBuffer(PROGRESS_BYTES);
    this.board = progressBoard(buffer);
    this.board.deadline[0] = Number.POSITIVE_INFINITY;
    const options = { workerData: { progress: buffer }, resourceLimits: this.resourceLimits };
    const worker = startWorker(this.entry, options);
    this.worker = worker;
    this.ready = false;
    this.lastError = undefined;
    this.firstSeq = 1;
    this.nextSeq = 1;
    worker.on('message', (reply: WorkerReply) => this.receive(reply));
    worker.on('error', (error) => {
      this.lastError = error;
    });
    worker.on('exit', () => this.died(worker));
    worker.unref();
    for (const scriptId of this.host.scripts.keys()) {
      if (scriptId !== skipped) void this.sendCompile(scriptId, carried.get(scriptId));
    }
    for (const [scriptId, request] of carried) {
      if (!this.host.scripts.has(scriptId)) request.reject(new ScriptError('script sandbox is closed'));
    }
  }

  private sendCompile(
    scriptId: number,
    carried: Pick<Compile, 'resolve' | 'reject'> | undefined,
  ): Promise<void> {
    const script = this.host.scripts.get(scriptId);
    if (!script) return Promise.reject(new ScriptError('script sandbox is closed'));
    const promise = new Promise<void>((resolve, reject) => {
      const request: Compile = {
        kind: 'compile',
        scriptId,
        timeoutMs: script.compileTimeoutMs,
        resolve: () => {
          this.compiling.delete(scriptId);
          resolve();
          carried?.resolve();
        },
        reject: (error) => {
          this.compiling.delete(scriptId);
          reject(error);
          carried?.reject(error);
        },
      };
      this.send({ type: 'compile', seq: this.nextSeq, scriptId, ...script }, [request]);
    });
    // A recompile nobody waits for must not surface as an unhandled rejection.
    promise.catch(noop);
    this.compiling.set(scriptId, promise);
    return promise;
  }

  private send(message: WorkerRequest, requests: readonly Request[]): void {
    const worker = this.worker;
    if (!worker) return;
    if (this.unanswered.length === 0) worker.ref();
    for (const request of requests) this.unanswered.push(request);
    this.nextSeq += requests.length;
    worker.postMessage(message);
    if (!this.timer) this.arm(this.limitOf(requests[0]) + this.graceMs);
  }

  private receive(reply: WorkerReply): void {
    if (reply.type === 'ready') {
      this.ready = true;
      this.host.drained();
      return;
    }
    if (reply.type === 'compiled') {
      const request = this.unanswered.shift();
      this.firstSeq += 1;
      if (request?.kind === 'compile') {
        if (reply.error === undefined) request.resolve();
        else request.reject(new ScriptError(reply.error));
      }
    } else {
      const { outputs, failed } = reply;
      const answered = this.unanswered.splice(0, outputs.length);
      this.firstSeq += outputs.length;
      let nextFailure = 0;
      for (let index = 0; index < answered.length; index += 1) {
        const request = answered[index];
        const output = outputs[index] ?? '';
        const isFailure = failed[nextFailure] === index;
        if (isFailure) nextFailure += 1;
        if (request?.kind !== 'call') continue;
        if (isFailure) request.reject(new ScriptError(output));
        else request.resolve(output);
      }
      this.batchLeft -= answered.length;
      if (this.batchLeft === 0) this.host.drained();
    }
    if (this.unanswered.length === 0) this.quiet();
  }

  /** Nothing outstanding: the worker no longer keeps the process alive and needs no watching. */
  private quiet(): void {
    this.worker?.unref();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.watch(), Math.max(1, delayMs));
    this.timer.unref();
  }

  /** The watchdog: ends the worker when the request it runs is past its deadline plus the grace. */
  private watch(): void {
    this.timer = undefined;
    const board = this.board;
    if (!board || this.unanswered.length === 0) return;
    const seq = Atomics.load(board.running, 0);
    const deadline = board.deadline[0] ?? Number.POSITIVE_INFINITY;
    if (seq === 0 || !Number.isFinite(deadline)) {
      // Idle or between requests: whatever runs next gets at least its full limit.
      this.arm(this.limitOf(this.unanswered[0]) + this.graceMs);
      return;
    }
    const late = Date.now() - (deadline + this.graceMs);
    if (late < 0) {
      this.arm(-late);
      return;
    }
    const culprit = this.unanswered[seq - this.firstSeq] ?? this.unanswered[0];
    const reason = culprit ? `script timed out after ${this.limitOf(culprit)} ms` : 'script timed out';
    this.replace(culprit, new ScriptError(reason));
  }

  /** The worker exited on its own: out of memory, a crash, or a failed start. */
  private died(worker: Worker): void {
    if (worker !== this.worker) return;
    const error = this.lastError;
    const outOfMemory = (error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (!this.ready) {
      const reason = new ScriptError(`script worker failed to start: ${error?.message ?? 'it exited'}`);
      this.stop();
      for (const request of this.takeUnanswered()) request.reject(reason);
      this.host.failedToStart(reason);
      return;
    }
    // Between calls (sending results, say) the first unanswered request is blamed, so that every
    // death fails at least one request and a request that always kills its worker cannot loop.
    const seq = this.board ? Atomics.load(this.board.running, 0) : 0;
    const culprit = this.unanswered[seq === 0 ? 0 : seq - this.firstSeq] ?? this.unanswered[0];
    const reason = outOfMemory
      ? 'script exceeded memory limit'
      : `script worker stopped: ${error?.message ?? 'it exited'}`;
    this.replace(culprit, new ScriptError(reason));
  }

  /** Fails the culprit, starts a new worker with the pool's scripts, and replays the rest. */
  private replace(culprit: Request | undefined, error: ScriptError): void {
    const worker = this.stop();
    if (worker) void worker.terminate();
    const requests = this.takeUnanswered();
    culprit?.reject(error);
    const carried = new Map<number, Compile>();
    const calls: PendingCall[] = [];
    for (const request of requests) {
      if (request === culprit) continue;
      if (request.kind === 'compile') carried.set(request.scriptId, request);
      else calls.push(request);
    }
    this.start(carried, culprit?.kind === 'compile' ? culprit.scriptId : undefined);
    this.host.requeue(calls);
    this.host.drained();
  }

  /** Detaches the current worker (without ending it) and returns it. */
  private stop(): Worker | undefined {
    const worker = this.worker;
    this.worker = undefined;
    this.board = undefined;
    this.ready = false;
    this.batchLeft = 0;
    this.compiling.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    worker?.removeAllListeners();
    // A late 'error' of a terminated worker must not become an uncaught exception.
    worker?.on('error', noop);
    return worker;
  }

  private takeUnanswered(): Request[] {
    const requests = this.unanswered;
    this.unanswered = [];
    return requests;
  }

  private limitOf(request: Request | undefined): number {
    return request?.timeoutMs ?? 0;
  }
}
