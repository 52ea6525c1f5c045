// Exclusive holders across instances: each long-connection channel account is held by one instance
// (and a cron leader can be chosen the same way). A lease is renewed while held and expires when its
// holder dies, so another instance takes over. One instance alone is always granted every lease.

/** What the holder last reported about the thing it holds (a channel's connection state). */
export interface HolderStatus {
  state: 'connected' | 'connecting' | 'error' | 'disabled';
  error?: string;
  since: string;
}

export interface Holder {
  instance: string;
  status?: HolderStatus | undefined;
}

export interface LeaseGrant {
  /** Aborts when the lease is lost (renewal failed, or another instance holds it now). */
  readonly lost: AbortSignal;
  /** Shares the holder's status with the other instances (shown by their GET /channels). */
  report(status: HolderStatus): void;
  /** Gives the lease up at once, so another instance can take it. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** Stops waiting: acquire then resolves undefined. */
  signal: AbortSignal;
  /** Called while another instance holds the lease, each time it is checked. */
  onHeldElsewhere?: (holder: Holder) => void;
}

export interface ConnectionLease {
  /** This instance's id in clustered mode; undefined for a single instance. */
  readonly instanceId: string | undefined;
  /** Waits until this instance holds `key`; undefined when the signal aborts first. */
  acquire(key: string, options: AcquireOptions): Promise<LeaseGrant | undefined>;
}

/** A single instance holds everything, at once and for ever. */
export const alwaysGranted: ConnectionLease = {
  instanceId: undefined,
  acquire: async (_key, options) =>
    options.signal.aborted
      ? undefined
      : { lost: new AbortController().signal, report: () => undefined, release: async () => undefined },
};

/**
 * Runs `work` whenever this instance holds `key`, until `signal` aborts: acquire, run with a signal
 * that also aborts when the lease is lost, release, and wait for the lease again after a loss.
 */
export async function whileHeld(
  lease: ConnectionLease,
  key: string,
  signal: AbortSignal,
  work: (signal: AbortSignal, grant: LeaseGrant) => Promise<void>,
  onHeldElsewhere?: (holder: Holder) => void,
): Promise<void> {
  while (!signal.aborted) {
    const grant = await lease.acquire(key, { signal, ...(onHeldElsewhere ? { onHeldElsewhere } : {}) });
    if (!grant) return;
    const both = new AbortController();
    const stop = (): void => both.abort(signal.aborted ? signal.reason : grant.lost.reason);
    signal.addEventListener('abort', stop, { once: true });
    grant.lost.addEventListener('abort', stop, { once: true });
    if (signal.aborted || grant.lost.aborted) stop();
    try {
      await work(both.signal, grant);
    } finally {
      signal.removeEventListener('abort', stop);
      grant.lost.removeEventListener('abort', stop);
      await grant.release();
    }
  }
}
