// Model calls on worker threads. The openai SDK costs several times more CPU per call than the rest
// of an agent turn (building the request, the HTTP exchange, parsing the event stream); on the main
// thread it made one core the ceiling of the whole service while the other sat idle. Here a provider
// is a thin proxy: the request goes to the least busy worker (model-worker.ts), which runs the same
// OpenAI-compatible provider (retries, failover limits, time limits, key scrubbing all included) and
// posts its events back.
//
// - Workers start with the first call, so a server on the demo model or without AI nodes never pays
//   for them; they are unreferenced while idle and ended by `close`.
// - A caller that stops early (client gone, abort) is released at once and the worker is told to
//   cancel, which aborts the HTTP request upstream.
// - A worker that dies fails the calls it held with a 502 message and is replaced at the next call.
import { AppError } from '../core/errors.ts';
import { siblingWorker, startWorker, type WorkerEntry } from '../core/worker-entry.ts';
import type { Worker } from 'node:worker_threads';
import type { FromModelWorker, ToModelWorker, WorkerProviderOptions } from './model-worker-protocol.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from './types.ts';

export interface ModelThreadsOptions {
  /** Worker threads (at least 1). */
  workers: number;
  /** The worker's code; default model-worker next to this module. */
  entry?: WorkerEntry;
}

/** The receiving end of one call: batches of events, then the end or an error. */
class CallInbox {
  private batches: ModelEvent[][] = [];
  private finished = false;
  /** An error reported by the call: thrown once the batches that came before it are taken. */
  private failure: { error: unknown } | undefined;
  /** An abort or a shutdown: thrown at once, whatever is still queued. */
  private stopped: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  get settled(): boolean {
    return this.finished || this.failure !== undefined || this.stopped !== undefined;
  }

  push(events: ModelEvent[], done: boolean): void {
    if (this.settled) return;
    if (events.length > 0) this.batches.push(events);
    this.finished = done;
    this.notify();
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.failure = { error };
    this.notify();
  }

  stop(error: unknown): void {
    if (this.stopped) return;
    this.stopped = { error };
    this.notify();
  }

  /** The next batch; undefined once the call has finished; throws its error. */
  async take(): Promise<ModelEvent[] | undefined> {
    for (;;) {
      if (this.stopped) throw this.stopped.error;
      const batch = this.batches.shift();
      if (batch) return batch;
      if (this.failure) throw this.failure.error;
      if (this.finished) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

class ModelThread {
  private worker: Worker | undefined;
  private readonly defined = new Set<number>();
  private readonly calls = new Map<number, CallInbox>();

  constructor(private readonly entry: WorkerEntry) {}

  get load(): number {
    return this.calls.size;
  }

  call(
    id: number,
    key: number,
    options: WorkerProviderOptions,
    request: ModelRequest,
    inbox: CallInbox,
  ): void {
    const worker = this.ensureWorker();
    if (!this.defined.has(key)) {
      this.send(worker, { type: 'define', key, options });
      this.defined.add(key);
    }
    this.calls.set(id, inbox);
    if (this.calls.size === 1) worker.ref();
    const { signal: _signal, caller: _caller, ...plain } = request;
    this.send(worker, { type: 'call', id, key, request: plain });
  }

  cancel(id: number): void {
    if (!this.forgetCall(id) || !this.worker) return;
    this.send(this.worker, { type: 'cancel', id });
  }

  forget(key: number): void {
    if (this.defined.delete(key) && this.worker) this.send(this.worker, { type: 'forget', key });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.defined.clear();
    this.failAll(new AppError('unavailable', 'the service is shutting down'));
    if (worker) await worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // The SDK allocates a lot per call: below 32 MiB of young generation the worker spends a quarter
    // of its time collecting (measured: 2,960 agent turns/s at 8 MiB, 3,340 at 32 MiB, same peak RSS).
    const worker = startWorker(this.entry, { resourceLimits: { maxYoungGenerationSizeMb: 32 } });
    let lastError: Error | undefined;
    worker.on('message', (message: FromModelWorker) => this.receive(message));
    worker.on('error', (error) => {
      lastError = error;
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.defined.clear();
      // The worker's own error text stays out of answers: it may quote anything it was given.
      const cause = lastError ? `an uncaught ${lastError.name}` : `exit code ${code}`;
      this.failAll(new AppError('upstream', `the model worker stopped unexpectedly (${cause})`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private receive(message: FromModelWorker): void {
    const inbox = this.calls.get(message.id);
    if (!inbox) return;
    if (message.type === 'error') {
      this.forgetCall(message.id);
      inbox.fail(new AppError(message.kind, message.message));
      return;
    }
    if (message.done) this.forgetCall(message.id);
    inbox.push(message.events, message.done);
  }

  private forgetCall(id: number): boolean {
    if (!this.calls.delete(id)) return false;
    if (this.calls.size === 0) this.worker?.unref();
    return true;
  }

  private failAll(error: AppError): void {
    const inboxes = [...this.calls.values()];
    this.calls.clear();
    for (const inbox of inboxes) inbox.stop(error);
  }

  private send(worker: Worker, message: ToModelWorker): void {
    worker.postMessage(message);
  }
}

export class ModelThreads {
  private readonly threads: ModelThread[];
  private closed = false;
  private nextKey = 1;
  private nextCall = 1;
  // A provider dropped by a config reload is forgotten by the workers once it is collected.
  private readonly dropped = new FinalizationRegistry<number>((key) => {
    for (const thread of this.threads) thread.forget(key);
  });

  constructor(options: ModelThreadsOptions) {
    const entry = options.entry ?? siblingWorker('model-worker', import.meta.url);
    this.threads = Array.from({ length: Math.max(1, options.workers) }, () => new ModelThread(entry));
  }

  /** A provider that runs on the workers; its options cross threads, so they carry no functions. */
  provider(options: WorkerProviderOptions): ModelProvider {
    const key = this.nextKey++;
    const provider: ModelProvider = {
      id: options.id,
      demo: false,
      stream: (request) => this.stream(key, options, request),
    };
    this.dropped.register(provider, key);
    return provider;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private async *stream(
    key: number,
    options: WorkerProviderOptions,
    request: ModelRequest,
  ): AsyncGenerator<ModelEvent> {
    const { signal } = request;
    if (signal.aborted) throw signal.reason;
    if (this.closed) throw new AppError('unavailable', 'the service is shutting down');
    const thread = this.leastBusy();
    const id = this.nextCall++;
    const inbox = new CallInbox();
    const onAbort = (): void => inbox.stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      thread.call(id, key, options, request, inbox);
      for (;;) {
        const batch = await inbox.take();
        if (!batch) return;
        yield* batch;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      // A caller that left early, or an abort: the worker stops the HTTP request.
      thread.cancel(id);
    }
  }

  private leastBusy(): ModelThread {
    let best = this.threads[0] as ModelThread;
    for (const thread of this.threads) if (thread.load < best.load) best = thread;
    return best;
  }
}
