// Serialized work per key. One instance: an in-process mutex, as before. Clustered: the same mutex
// first (waiters of one instance queue in memory) and then a Redis lock shared by every instance.
import { KeyedMutex } from '../core/keyed-mutex.ts';

export interface LockOptions {
  /** Stops waiting (a request that timed out or went away); its reason is thrown. */
  signal?: AbortSignal | undefined;
  /** Longest wait for the lock, in ms, before an `unavailable` error (clustered mode; default 30000). */
  waitMs?: number | undefined;
}

export interface Locks {
  /** Runs `work` while holding the lock `key`; other holders of `key` wait. */
  run<T>(key: string, work: () => Promise<T>, options?: LockOptions): Promise<T>;
}

/** Locks of one process. Waiting is not bounded: it is what a single instance always did. */
export class LocalLocks implements Locks {
  private readonly mutex = new KeyedMutex();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.mutex.run(key, work);
  }
}
