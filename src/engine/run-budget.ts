// The work one top-level run may do, shared by every run it starts (flow and `for` bodies, sub-chains,
// rule-chain tools). Nodes such as fork and flow settle in microtasks, so without a bound a chain that
// forks into two flows back to itself doubles at each of its 16 levels and never lets the event loop
// turn: no time limit, health check or signal could stop it. The budget counts node executions and
// `for` iterations, fails the whole run tree past its limit, and every so many executions makes the
// run wait for the event loop to turn, so that timers, I/O and aborts get their turn.
import { setMaxListeners } from 'node:events';
import { AppError } from '../core/errors.ts';

export interface RunLimits {
  /** Node executions (and `for` iterations) of one top-level run, nested runs included. */
  maxNodeExecutions: number;
  /** Branches the outputs of one node execution may start. */
  maxFanOut: number;
  /** Node executions between two turns of the event loop. */
  yieldEvery: number;
}

/** A run of the tree: the budget cancels it when the tree is aborted or over its budget. */
export interface Cancellable {
  cancel(): void;
}

// Most runs are short and never abort, so a budget allocates little up front: the signal, the set of
// nested runs and the queue of waiting executions are made when first needed.
export class RunBudget {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  /** The top-level run, and the runs it started that are still going. */
  private root: Cancellable | undefined;
  private nested: Set<Cancellable> | undefined;
  private spent = 0;
  /** Executions that may still go on before the event loop must turn. */
  private credit: number;
  /** Executions waiting for a turn of the event loop, in order; each turn lets `yieldEvery` go on. */
  private waiting: Array<() => void> | undefined;
  private onCallerAbort: (() => void) | undefined;

  constructor(
    readonly limits: RunLimits,
    private readonly chainId: string,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.credit = limits.yieldEvery;
    if (caller?.aborted) this.abortedWith = { reason: caller.reason };
    else if (caller) {
      this.onCallerAbort = () => this.abort(caller.reason);
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  /** Aborts when the caller's signal does, when the run is over budget, or when the run fails. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // Every node of a large fan-out may listen to it at once; that is no leak.
      setMaxListeners(0, this.controller.signal);
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** Why the run tree was aborted: the caller's reason, or the AppError of a limit. */
  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  watch(run: Cancellable): void {
    if (!this.root) this.root = run;
    else (this.nested ??= new Set()).add(run);
  }

  unwatch(run: Cancellable): void {
    if (run === this.root) this.root = undefined;
    else this.nested?.delete(run);
  }

  /**
   * Counts one node execution or iteration. Past the limit it fails the whole run. Every
   * `yieldEvery` executions it returns a promise to await, settled after the event loop has turned,
   * and releases the executions waiting at that turn `yieldEvery` at a time, so that however wide a
   * run fans out, one turn of the event loop does a bounded amount of its work.
   */
  spend(): Promise<void> | undefined {
    if (this.abortedWith) return undefined;
    this.spent += 1;
    if (this.spent > this.limits.maxNodeExecutions) {
      this.fail(
        new AppError(
          'too-large',
          `the run of rule chain "${this.chainId}" exceeded ${this.limits.maxNodeExecutions} node executions`,
        ),
      );
      return undefined;
    }
    if (this.credit > 0 && !this.waiting) {
      this.credit -= 1;
      return undefined;
    }
    return new Promise((resolve) => {
      if (this.waiting) this.waiting.push(resolve);
      else {
        this.waiting = [resolve];
        setImmediate(() => this.turnTaken());
      }
    });
  }

  /** Fails every run of the tree with `error`; nodes still working see their signal abort. */
  fail(error: AppError): void {
    this.abort(error);
  }

  /** The top-level run settled; a failed one stops whatever of its tree is still going. */
  finish(error: unknown): void {
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
    if (error !== undefined) this.abort(error);
  }

  private abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
    this.controller?.abort(reason);
    this.root?.cancel();
    for (const run of [...(this.nested ?? [])]) run.cancel();
    // What waits for a turn goes on now, sees the abort and ends.
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const resolve of waiting) resolve();
  }

  /** A turn of the event loop came: the next `yieldEvery` waiting executions go on. */
  private turnTaken(): void {
    const waiting = this.waiting ?? [];
    const released = waiting.splice(0, this.limits.yieldEvery);
    this.credit = this.limits.yieldEvery - released.length;
    if (waiting.length > 0) setImmediate(() => this.turnTaken());
    else this.waiting = undefined;
    for (const resolve of released) resolve();
  }
}
