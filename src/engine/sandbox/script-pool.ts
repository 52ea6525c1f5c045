// The script sandboxes of an engine, run in worker threads. QuickJS checks its time limit only every
// ~10,000 interpreter steps and a built-in call is one step, so `while (true) new Array(1e6).fill(1)`
// can run for minutes past its limit; on the main thread that would stop the whole server. Here the
// main thread only queues calls, and a watchdog per worker (script-thread.ts) ends a worker whose call
// runs past its limit plus a grace, failing that call with "script timed out after N ms".
//
// Choices, measured with a jsFilter -> jsTransform -> end chain over HTTP (autocannon, 100
// connections, 2 cores shared with the load generator): 16,000-17,800 requests/s, p99 12-16 ms,
// against 9,800-10,300 requests/s, p99 16-24 ms, when scripts ran on the main thread, which is now
// freed of the QuickJS work.
// - Every script is compiled on every worker, so a call goes to whichever worker is free; one stuck
//   worker then delays only the batch it holds, and a node's throughput is not tied to one thread.
//   The price: globals a script keeps between calls are per worker, as with any pool of VMs.
// - Calls are batched: each worker has at most one batch in flight, and the calls queued meanwhile
//   (gathered until the end of the event-loop turn) are shared among the free workers, one message
//   each, so under load the cost of crossing threads is spread over many calls (about 30 per batch
//   in the benchmark). Under light load a batch is one call.
// - The first worker starts on the first compile, the others when calls are left over or many wait
//   at once. Idle workers are unreferenced (an engine nobody closes does not keep the process
//   alive); `close` ends them.
import { availableParallelism } from 'node:os';
import type { SandboxLimits } from './sandbox.ts';
import { ScriptError } from './script-error.ts';
import { PendingCall } from './pending-call.ts';
import type { CallOwner } from './pending-call.ts';
import { ScriptThread } from './script-thread.ts';
import type { ScriptSource, ThreadHost } from './script-thread.ts';
import { siblingWorker, type WorkerEntry } from '../../core/worker-entry.ts';

export interface ScriptPoolOptions {
  /** Worker threads; default one per core but one (the main thread's), at least 1 and at most 2. */
  workers?: number;
  /** How far past its limit a call may run before its worker is ended; default 250 ms. */
  graceMs?: number;
  /** V8 heap limit of each worker (QuickJS's own heap is limited separately); default 256 MiB. */
  workerHeapMb?: number;
  /** The worker's code; default script-worker next to this module. Tests pass fakes made by `workerEntry`. */
  entry?: WorkerEntry;
}

/**
 * A worker heap limit with room for the results of scripts of a given budget. Scripts allocate in
 * QuickJS's heap, not V8's; V8 holds only batches and results, so the limit is a backstop, and it
 * must stay well above them: Node ends a worker at its limit with 16 MiB of slack, and one larger
 * allocation at that moment aborts the whole process.
 */
export function workerHeapMbFor(scriptMemoryBytes: number): number {
  return Math.max(256, 64 + 8 * Math.ceil(scriptMemoryBytes / (1024 * 1024)));
}

// A batch is bounded so one message stays small enough to clone quickly and to replay after a kill.
const MAX_BATCH_CALLS = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;
/**
 * The least time a compile gets, whatever the call limit. It covers a fresh worker's QuickJS start
 * as well, which on a busy machine took over a second of wall time (nine chains of one full test
 * run at load 18 on two cores failed to load at 1 s): a chain must not fail to load because the
 * machine is busy. Code run at compile is still stopped, only later.
 */
const MIN_COMPILE_TIMEOUT_MS = 5000;
/** How often calls whose run was aborted are looked for. */
const SWEEP_MS = 20;
/** This many calls waiting at once start another worker, even if one could take them all. */
const GROW_AT = 8;

export class ScriptPool {
  private readonly scripts = new Map<number, ScriptSource>();
  private readonly queue: PendingCall[] = [];
  private readonly aborts = new AbortSweep();
  private threads: ScriptThread[] | undefined;
  private flushScheduled = false;
  private closed = false;
  private lastId = 0;
  private readonly host: ThreadHost = {
    scripts: this.scripts,
    requeue: (calls) => {
      this.queue.unshift(...calls);
      this.schedule();
    },
    drained: () => {
      if (this.queue.length > 0) this.schedule();
    },
    failedToStart: (error) => {
      if (this.threads?.some((thread) => thread.started)) return;
      for (const call of this.queue.splice(0)) call.reject(error);
    },
  };

  constructor(private readonly options: ScriptPoolOptions = {}) {}

  /**
   * Compiles `source`, a JS expression evaluating to a function from one string to a string, on
   * every worker; a syntax error throws ScriptError. Returns the id that `call` takes.
   */
  async compile(source: string, limits: SandboxLimits): Promise<number> {
    if (this.closed) throw new ScriptError('script sandbox is closed');
    this.lastId += 1;
    const scriptId = this.lastId;
    const { timeoutMs, memoryBytes } = limits;
    // Compiling can run code: QuickJS's Function constructor pastes the body into source text, so a
    // body can close the function early and run statements. Hence a limit, but never a tiny one:
    // a fresh worker on a busy machine can take tens of milliseconds for honest source.
    const compileTimeoutMs = Math.max(timeoutMs, limits.compileTimeoutMs ?? MIN_COMPILE_TIMEOUT_MS);
    this.scripts.set(scriptId, { source, timeoutMs, memoryBytes, compileTimeoutMs });
    try {
      const threads = this.allThreads();
      const live = threads.filter((thread) => thread.started);
      await Promise.all(
        (live.length > 0 ? live : threads.slice(0, 1)).map((thread) => thread.compile(scriptId)),
      );
    } catch (error) {
      this.release(scriptId);
      throw error;
    }
    return scriptId;
  }

  /**
   * Runs a compiled script on `input`; rejects with ScriptError, or the signal's reason when the
   * signal of `owner` (a node's context, say) aborts. That signal is read only while the call waits,
   * so a run that never needs to cancel a call never has to make one.
   */
  call(scriptId: number, input: string, owner?: CallOwner): Promise<string> {
    const script = this.scripts.get(scriptId);
    if (!script) return Promise.reject(new ScriptError('script sandbox is closed'));
    // The input is copied into the script's heap, so one longer than its budget cannot fit.
    if (input.length > script.memoryBytes)
      return Promise.reject(new ScriptError('script exceeded memory limit'));
    return new Promise<string>((resolve, reject) => {
      const call = new PendingCall(scriptId, input, script.timeoutMs, owner, resolve, reject);
      if (owner) this.aborts.watch(call);
      this.queue.push(call);
      this.schedule();
    });
  }

  /** Frees a script on every worker; calls still queued for it fail as closed. */
  release(scriptId: number): void {
    if (!this.scripts.delete(scriptId)) return;
    for (const thread of this.threads ?? []) thread.dispose(scriptId);
  }

  /** Ends every worker; calls under way fail. The pool refuses work after. */
  async close(): Promise<void> {
    this.closed = true;
    this.scripts.clear();
    const error = new ScriptError('script sandbox is closed');
    for (const call of this.queue.splice(0)) call.reject(error);
    this.aborts.stop();
    const threads = this.threads ?? [];
    this.threads = undefined;
    await Promise.all(threads.map((thread) => thread.close(error)));
  }

  private allThreads(): ScriptThread[] {
    if (this.threads) return this.threads;
    const count = Math.max(1, this.options.workers ?? defaultWorkers());
    const entry = this.options.entry ?? siblingWorker('script-worker', import.meta.url);
    // Script workers move small strings; a small young generation keeps each worker's memory low.
    const limits = { maxOldGenerationSizeMb: this.options.workerHeapMb ?? 256, maxYoungGenerationSizeMb: 4 };
    const graceMs = this.options.graceMs ?? 250;
    this.threads = Array.from({ length: count }, () => new ScriptThread(this.host, entry, graceMs, limits));
    return this.threads;
  }

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  /**
   * Shares what is queued among the free workers, one bounded batch each. When calls are left over
   * or many wait at once, the next worker not yet started is started: the pool grows only under load.
   */
  private readonly flush = (): void => {
    this.flushScheduled = false;
    const threads = this.threads ?? [];
    const waiting = this.queue.length;
    if (waiting === 0) return;
    const free = threads.filter((thread) => thread.free);
    const share = Math.ceil(waiting / Math.max(1, free.length));
    for (const thread of free) {
      const batch = this.takeBatch(share);
      if (batch.length > 0) thread.run(batch);
    }
    if (this.queue.length > 0 || waiting >= GROW_AT) threads.find((thread) => !thread.started)?.launch();
  };

  private takeBatch(share: number): PendingCall[] {
    const batch: PendingCall[] = [];
    const most = Math.min(share, MAX_BATCH_CALLS);
    let chars = 0;
    let taken = 0;
    while (taken < this.queue.length && batch.length < most && chars < MAX_BATCH_CHARS) {
      const call = this.queue[taken] as PendingCall;
      taken += 1;
      if (call.settled) continue;
      batch.push(call);
      chars += call.input.length;
    }
    this.queue.splice(0, taken);
    return batch;
  }
}

/**
 * Rejects calls whose signal has aborted, within SWEEP_MS (the worker may finish such a call in the
 * background; its answer is then ignored). A sweep over the waiting calls instead of an abort
 * listener per call: adding and removing EventTarget listeners cost more than the rest of a call.
 */
class AbortSweep {
  private readonly calls = new Set<PendingCall>();
  private timer: NodeJS.Timeout | undefined;

  watch(call: PendingCall): void {
    this.calls.add(call);
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.calls.clear();
  }

  private sweep(): void {
    for (const call of this.calls) {
      if (call.settled) this.calls.delete(call);
      else if (call.owner?.signal.aborted) {
        this.calls.delete(call);
        call.reject(call.owner.signal.reason);
      }
    }
    if (this.calls.size === 0) this.stop();
  }
}

// On two cores one worker serves as many calls as two (the main thread and the load take the rest),
// and each worker costs about 16 MB.
function defaultWorkers(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 1));
}
