// One script call on its way through the pool (script-pool.ts) and a worker (script-thread.ts).

/** What a call is cancelled by: the abort of its `signal`, read only while the call waits. */
export interface CallOwner {
  readonly signal: AbortSignal;
}

/** A call waiting for its result; settles once, whatever happens to the worker that runs it. */
export class PendingCall {
  readonly kind = 'call';
  settled = false;

  constructor(
    readonly scriptId: number,
    readonly input: string,
    readonly timeoutMs: number,
    /** Dropped once the call settles: the abort sweep may hold a settled call a while longer. */
    public owner: CallOwner | undefined,
    private readonly resolveText: (text: string) => void,
    private readonly rejectError: (error: unknown) => void,
  ) {}

  resolve(text: string): void {
    if (this.settled) return;
    this.settled = true;
    this.owner = undefined;
    this.resolveText(text);
  }

  reject(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.owner = undefined;
    this.rejectError(error);
  }
}
