// What a budget has spent and holds reserved in its current period. The in-process counters serve
// a single instance; clustered instances share Redis counters (redis-budget-counters.ts) that do
// the same steps atomically in Lua. Both follow one rule: a call is admitted only while
// spent + reserved < limit, so concurrent calls overspend by at most the last one's reservation.

export interface Amount {
  tokens: number;
  nanos: number;
}

export const ZERO: Amount = Object.freeze({ tokens: 0, nanos: 0 });

export interface CounterEntry {
  /** The budget, its scope and its period: `<id>:<scope hash>:<period key>`. */
  key: string;
  /** -1: no limit of that kind. */
  limitTokens: number;
  limitNanos: number;
  /** Only blocking budgets hold reservations and refuse calls. */
  block: boolean;
  /** When the counter may be forgotten (after the period ends). */
  expiresAt: number;
}

export interface Refusal {
  index: number;
  reached: boolean;
}

export interface CounterState {
  spent: Amount;
  reserved: Amount;
}

export interface BudgetCounters {
  /**
   * Reserves `amount` on every blocking entry unless one of them cannot take it: undefined when
   * reserved; else that entry's index, and whether its limit is reached (spent >= limit) or only
   * held by calls in flight (spent + reserved >= limit), which may end below it.
   */
  reserve(entries: CounterEntry[], callId: string, amount: Amount, now: number): Promise<Refusal | undefined>;
  /** Resolves when a call may have settled: at the next settlement here, or after `ms` at most. */
  settled(ms: number): Promise<void>;
  /** Releases the call's reservation and adds what it used; the spent amounts before and after. */
  settle(
    entries: CounterEntry[],
    callId: string,
    actual: Amount,
  ): Promise<Array<{ before: Amount; after: Amount }>>;
  read(entries: CounterEntry[]): Promise<CounterState[]>;
  /** Sets the spent amount of a counter used for the first time (from the database); once. */
  seed(entry: CounterEntry, spent: Amount): Promise<void>;
  /** True the first time a key is seen until `expiresAt` (a notice sent once per user and period). */
  firstTime(key: string, expiresAt: number): Promise<boolean>;
}

interface LocalCounter {
  spent: Amount;
  reserved: Amount;
  calls: Map<string, Amount>;
  seeded: boolean;
  expiresAt: number;
}

export function reached(entry: CounterEntry, state: CounterState): boolean {
  return (
    (entry.limitTokens >= 0 && state.spent.tokens + state.reserved.tokens >= entry.limitTokens) ||
    (entry.limitNanos >= 0 && state.spent.nanos + state.reserved.nanos >= entry.limitNanos)
  );
}

/** The counters of a single instance. */
export class LocalBudgetCounters implements BudgetCounters {
  private readonly counters = new Map<string, LocalCounter>();
  private readonly seen = new Map<string, number>();
  private waiters: Array<() => void> = [];

  private counter(entry: CounterEntry): LocalCounter {
    let counter = this.counters.get(entry.key);
    if (!counter) {
      this.sweep(Date.now());
      counter = {
        spent: { ...ZERO },
        reserved: { ...ZERO },
        calls: new Map(),
        seeded: false,
        expiresAt: entry.expiresAt,
      };
      this.counters.set(entry.key, counter);
    }
    return counter;
  }

  reserve(entries: CounterEntry[], callId: string, amount: Amount): Promise<Refusal | undefined> {
    const counters = entries.map((entry) => this.counter(entry));
    const index = entries.findIndex(
      (entry, position) => entry.block && reached(entry, counters[position] as LocalCounter),
    );
    if (index >= 0) {
      const counter = counters[index] as LocalCounter;
      const entry = entries[index] as CounterEntry;
      return Promise.resolve({ index, reached: reached(entry, { spent: counter.spent, reserved: ZERO }) });
    }
    entries.forEach((entry, index) => {
      if (!entry.block) return;
      const counter = counters[index] as LocalCounter;
      counter.reserved.tokens += amount.tokens;
      counter.reserved.nanos += amount.nanos;
      counter.calls.set(callId, amount);
    });
    return Promise.resolve(undefined);
  }

  settled(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.push(wake);
    });
  }

  settle(
    entries: CounterEntry[],
    callId: string,
    actual: Amount,
  ): Promise<Array<{ before: Amount; after: Amount }>> {
    // Calls waiting for room look again once this one's reservation is released (below).
    const waiters = this.waiters;
    this.waiters = [];
    queueMicrotask(() => {
      for (const wake of waiters) wake();
    });
    return Promise.resolve(
      entries.map((entry) => {
        const counter = this.counter(entry);
        const held = counter.calls.get(callId);
        if (held) {
          counter.reserved.tokens -= held.tokens;
          counter.reserved.nanos -= held.nanos;
          counter.calls.delete(callId);
        }
        const before = { ...counter.spent };
        counter.spent.tokens += actual.tokens;
        counter.spent.nanos += actual.nanos;
        return { before, after: { ...counter.spent } };
      }),
    );
  }

  read(entries: CounterEntry[]): Promise<CounterState[]> {
    return Promise.resolve(
      entries.map((entry) => {
        const counter = this.counter(entry);
        return { spent: { ...counter.spent }, reserved: { ...counter.reserved } };
      }),
    );
  }

  seed(entry: CounterEntry, spent: Amount): Promise<void> {
    const counter = this.counter(entry);
    if (!counter.seeded) {
      counter.seeded = true;
      counter.spent.tokens += spent.tokens;
      counter.spent.nanos += spent.nanos;
    }
    return Promise.resolve();
  }

  firstTime(key: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return Promise.resolve(false);
    if (this.seen.size > 10_000)
      for (const [seenKey, end] of this.seen) if (end <= now) this.seen.delete(seenKey);
    this.seen.set(key, expiresAt);
    return Promise.resolve(true);
  }

  private sweep(now: number): void {
    if (this.counters.size < 1000) return;
    for (const [key, counter] of this.counters) if (counter.expiresAt <= now) this.counters.delete(key);
  }
}
