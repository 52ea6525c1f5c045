// One script call on its way through the pool (script-pool.ts) and a worker (script-thread.ts).

/** A call waiting for its result; settles once, whatever happens to the worker that runs it. */
export class PendingCall {
  readonly kind = 'call';
  settled = false;

  constructor(
    readonly scriptId: number,
    readonly input: string,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    private readonly resolveText: (text: string) => void,
    private readonly rejectError: (error: unknown) => void,
  ) {}

  resolve(text: string): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveText(text);
  }

  reject(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectError(error);
  }
}
