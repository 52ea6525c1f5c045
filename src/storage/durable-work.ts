// Work that must not be lost when an instance dies: an inbound channel message acknowledged to its
// platform, a cron fire. Each is recorded (table durable_work, migration 750) before it is
// acknowledged or run, with this instance as its owner and a lease that the instance renews while
// it works on it. When it ends it is marked done or failed. A row whose lease ran out belongs to an
// instance that died (or lost the database for longer than the lease): a live instance claims it
// (one conditional UPDATE, so one claimer wins) and runs it again. In single mode the instance
// claims every unfinished row at start, since no other instance can be working on it.
//
// The row's id is the work's natural key (a platform's message id, a task and its fire time), so a
// redelivery of the same message is recognised by every instance while the row is kept (a day).
import { errorMessage } from '../core/errors.ts';
import { dialectOf, openDatabase, type Db } from './database.ts';
import type {
  ClaimedWork,
  DurableWorkOptions,
  DurableWorkTable,
  WorkDb,
  WorkOutcome,
  WorkStatus,
} from './durable-work-types.ts';

export type {
  ClaimedWork,
  DurableWorkOptions,
  DurableWorkTable,
  WorkOutcome,
  WorkStatus,
} from './durable-work-types.ts';

type Handler = (work: ClaimedWork) => Promise<WorkOutcome>;

export class DurableWork {
  private readonly db: WorkDb;
  /** Where claims are renewed and confirmed: the database, or a pool of its own (`leaseUrl`). */
  private leaseDb: WorkDb;
  private leasePool: Db | undefined;
  private readonly handlers = new Map<string, Handler>();
  private readonly gaveUp = new Map<string, (work: ClaimedWork) => Promise<void>>();
  /** Rows this instance works on, renewed every tick. */
  private readonly active = new Set<string>();
  /** Rows marked done as their reply went out (markSent), not yet finished by their handler. */
  private readonly sent = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** Claims of lost work and pruning, running apart from the ticks' renewals. */
  private claiming: Promise<void> | undefined;
  private stopped = false;
  /** Since when the database has answered without a break (claims of others' rows wait for it). */
  private healthySince: number;
  private lastPrune = 0;
  logger: DurableWorkOptions['logger'];

  constructor(
    db: Db,
    readonly owner: string,
    private readonly options: DurableWorkOptions = {},
  ) {
    this.db = db as unknown as WorkDb;
    this.leaseDb = this.db;
    this.logger = options.logger;
    this.healthySince = this.now();
  }

  get leaseMs(): number {
    return this.options.leaseMs ?? 3_000;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Rows of `kind` found unfinished (a lost instance's) are given to `handler`. */
  handle(kind: string, handler: Handler, onGiveUp?: (work: ClaimedWork) => Promise<void>): void {
    this.handlers.set(kind, handler);
    if (onGiveUp) this.gaveUp.set(kind, onGiveUp);
  }

  /**
   * Records work claimed by this instance. False when a row with this id exists already: the same
   * message delivered again (or a fire already taken by another instance).
   */
  async record(kind: string, id: string, payload: unknown): Promise<boolean> {
    const result = await this.db
      .insertInto('durable_work')
      .values(this.newRow(kind, id, payload))
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    const inserted = Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    if (inserted) this.active.add(id);
    return inserted;
  }

  /**
   * The row `record` would insert, for a caller that inserts it in a statement of its own (a cron
   * fire claimed in the query that reads its task); `adopt` it once inserted.
   */
  newRow(kind: string, id: string, payload: unknown): DurableWorkTable {
    const now = this.now();
    return {
      id,
      kind,
      payload: JSON.stringify(payload),
      status: 'running',
      owner: this.owner,
      lease_until: now + this.leaseMs,
      attempts: 1,
      created_at: now,
      updated_at: now,
    };
  }

  /** A row from `newRow` that the caller inserted: renewed by this instance until finished. */
  adopt(id: string): void {
    this.active.add(id);
  }

  /** A row the caller marked finished in a statement of its own (status as `finish` sets it). */
  finishedElsewhere(id: string): void {
    this.active.delete(id);
  }

  /**
   * Marks the row done as its reply is sent, started together with the send: the mark reaches the
   * database within microseconds of the request, not after the platform's answer (a kill in that
   * wait left an answer sent and the row unfinished, so the taker sent it again: 22 duplicates in a
   * chaos run on a loaded machine). Never rejects; not marked, `finish` marks it after the send.
   */
  async markSent(id: string): Promise<void> {
    const marked = await this.move(id, 'running', { status: 'done' }, 'answered before its send');
    if (marked) this.sent.add(id);
  }

  /**
   * The send marked by markSent failed (it is retried, or the work fails): running again. Should
   * this fail too, the row stays done while the send is retried, and a kill then leaves it unanswered.
   */
  async unmarkSent(id: string): Promise<void> {
    if (this.sent.delete(id))
      await this.move(
        id,
        'done',
        { status: 'running', lease_until: this.now() + this.leaseMs },
        'running again',
      );
  }

  /** One row of this instance from status `from` to `set`, over the lease connections; logged, never thrown. */
  private async move(
    id: string,
    from: WorkStatus,
    set: { status: WorkStatus; lease_until?: number },
    what: string,
  ): Promise<boolean> {
    try {
      const result = await this.leaseDb
        .updateTable('durable_work')
        .set({ ...set, updated_at: this.now() })
        .where('id', '=', id)
        .where('owner', '=', this.owner)
        .where('status', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    } catch (error) {
      this.logger?.warn({ id, err: errorMessage(error) }, `could not mark durable work ${what}`);
      return false;
    }
  }

  /** Marks this instance's row finished; retried, since losing it would run the work again. */
  async finish(id: string, status: Exclude<WorkStatus, 'running'>): Promise<void> {
    if (this.sent.delete(id) && status === 'done') {
      this.active.delete(id);
      return;
    }
    // Renewed until the mark is written (the database may be away): no other instance takes it over.
    for (let attempt = 1; ; attempt++) {
      try {
        // Over the lease connections: right after a reply went out, every millisecond until this
        // mark is a window in which a kill makes the taker send the answer again.
        await this.leaseDb
          .updateTable('durable_work')
          .set({ status, updated_at: this.now() })
          .where('id', '=', id)
          .where('owner', '=', this.owner)
          .execute();
        this.active.delete(id);
        return;
      } catch (error) {
        // Stopping: one more try, on the shared pool (the lease connections close at stop).
        if ((this.stopped && attempt > 1) || attempt >= 120) {
          this.active.delete(id);
          this.logger?.warn({ id, err: errorMessage(error) }, 'could not mark durable work finished');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * attempt, 2_000)));
      }
    }
  }

  /**
   * Whether this instance still owns the row, renewing its lease if so. Asked before the work's
   * effect leaves the instance (a reply is sent): an instance that stalled past its lease finds its
   * row claimed by another, which answers instead. Only a confirmed renewal counts (a reply sent
   * unconfirmed during a PostgreSQL outage could be the second one); unconfirmed within `confirmMs`,
   * the row is left to whoever claims it next. Confirmed, it is held for `sendLeaseMs`, then renewed
   * by the ticks until marked. `payload` replaces the row's payload in the same statement (the
   * answer about to be sent, for whoever takes the row over before it is sent).
   */
  async stillOwned(id: string, confirmMs = this.leaseMs, payload?: unknown): Promise<boolean> {
    const text = payload === undefined ? undefined : JSON.stringify(payload);
    const deadline = this.now() + confirmMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.leaseDb
          .updateTable('durable_work')
          .set({
            lease_until: this.now() + (this.options.sendLeaseMs ?? 5_000),
            ...(text === undefined ? {} : { payload: text, updated_at: this.now() }),
          })
          .where('id', '=', id)
          .where('owner', '=', this.owner)
          .where('status', '=', 'running')
          .executeTakeFirst();
        const owned = Number(result.numUpdatedRows) > 0;
        // Owned, the ticks go on renewing it until it is marked answered: with the database away
        // between the send and the mark (the chaos run's PostgreSQL cut), a live owner renews it as
        // soon as the database is back, before the others claim anything (they wait two ticks).
        if (!owned) {
          this.active.delete(id);
          this.logger?.info({ id }, 'durable work taken over by another instance; not finished here');
        }
        return owned;
      } catch (error) {
        if (this.stopped || this.now() >= deadline) {
          // No longer renewed here: its lease runs out and the next claimer (maybe this instance) runs it.
          this.active.delete(id);
          this.logger?.warn(
            { id, err: errorMessage(error) },
            'could not confirm the claim of durable work; left to be run again',
          );
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * attempt, 500)));
      }
    }
  }

  /** Adds to this instance's row's payload (the id of a reply begun), for whoever takes it over. */
  async note(id: string, payload: unknown): Promise<void> {
    await this.db
      .updateTable('durable_work')
      .set({ payload: JSON.stringify(payload), updated_at: this.now() })
      .where('id', '=', id)
      .where('owner', '=', this.owner)
      .where('status', '=', 'running')
      .execute()
      .catch((error: unknown) =>
        this.logger?.warn({ id, err: errorMessage(error) }, 'could not note progress of durable work'),
      );
  }

  /**
   * Hands a row back: any instance (this one included) claims it on its next tick. `uncounted`: the
   * work never started (no capacity), so this claim does not count as an attempt.
   */
  async release(id: string, uncounted = false): Promise<void> {
    this.active.delete(id);
    try {
      await this.db
        .updateTable('durable_work')
        .set((eb) => ({
          lease_until: 0,
          updated_at: this.now(),
          ...(uncounted ? { attempts: eb('attempts', '-', 1) } : {}),
        }))
        .where('id', '=', id)
        .where('owner', '=', this.owner)
        .where('status', '=', 'running')
        .execute();
    } catch (error) {
      // The lease runs out on its own.
      this.logger?.warn({ id, err: errorMessage(error) }, 'could not hand durable work back');
    }
  }

  /** The status of a row (tests and the chaos run read it), or undefined. */
  async status(id: string): Promise<{ status: WorkStatus; owner: string; attempts: number } | undefined> {
    const row = await this.db
      .selectFrom('durable_work')
      .select(['status', 'owner', 'attempts'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row
      ? { status: row.status as WorkStatus, owner: row.owner, attempts: Number(row.attempts) }
      : undefined;
  }

  /** Starts renewing claims and picking up lost work. */
  async start(): Promise<void> {
    const url = this.options.leaseUrl;
    if (url && dialectOf(url) === 'postgres') {
      try {
        this.leasePool = await openDatabase(url, { poolSize: 4, migrate: false });
        this.leaseDb = this.leasePool as unknown as WorkDb;
      } catch (error) {
        // The shared pool still renews them, as before there was a pool of their own.
        this.logger?.warn({ err: errorMessage(error) }, 'durable work: no connections of its own for leases');
      }
    }
    if (this.options.single) {
      // Whatever is unfinished was left by this data root's previous process.
      await this.db
        .updateTable('durable_work')
        .set({ lease_until: 0 })
        .where('status', '=', 'running')
        .execute()
        .catch((error: unknown) =>
          this.logger?.warn({ err: errorMessage(error) }, 'could not look for unfinished work'),
        );
      this.healthySince = 0;
    }
    this.schedule(0);
  }

  /** Stops claiming; rows in flight are handed back (another instance, or the next start, runs them). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.claiming;
    await Promise.all([...this.running]);
    this.leaseDb = this.db;
    await this.leasePool?.destroy();
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        this.schedule(this.options.tickMs ?? 750);
      });
    }, delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const now = this.now();
    try {
      if (this.active.size > 0) {
        await this.leaseDb
          .updateTable('durable_work')
          .set({ lease_until: now + this.leaseMs })
          .where('id', 'in', [...this.active])
          .where('owner', '=', this.owner)
          .where('status', '=', 'running')
          .execute();
      }
    } catch (error) {
      this.unhealthy(error);
      return;
    }
    if (this.healthySince === Number.POSITIVE_INFINITY) this.healthySince = now;
    // Not waited for: claims and pruning go through the shared pool, which a busy instance (or one
    // whose connections are coming back after an outage) queues behind its turns; renewals waiting
    // on them came too late, and another instance took over messages this one had answered.
    // After a break, claims wait until the live owners have had two ticks to renew what they hold.
    if (!this.claiming && now - this.healthySince >= 2 * (this.options.tickMs ?? 750)) {
      this.claiming = this.claimAndPrune(now)
        .catch((error: unknown) => this.unhealthy(error))
        .finally(() => (this.claiming = undefined));
    }
  }

  private unhealthy(error: unknown): void {
    if (this.healthySince !== Number.POSITIVE_INFINITY)
      this.logger?.warn({ err: errorMessage(error) }, 'durable work: the database did not answer');
    this.healthySince = Number.POSITIVE_INFINITY;
  }

  private async claimAndPrune(now: number): Promise<void> {
    await this.claimLost(now);
    if (now - this.lastPrune > 10 * 60_000) {
      this.lastPrune = now;
      await this.db
        .deleteFrom('durable_work')
        .where('status', '!=', 'running')
        .where('updated_at', '<', now - (this.options.keepMs ?? 24 * 60 * 60_000))
        .execute();
    }
  }

  private async claimLost(now: number): Promise<void> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return;
    const lost = await this.db
      .selectFrom('durable_work')
      .selectAll()
      .where('status', '=', 'running')
      .where('lease_until', '<', now)
      .where('kind', 'in', kinds)
      .orderBy('created_at')
      .limit(50)
      .execute();
    for (const row of lost) {
      if (this.stopped) return;
      const claimed = await this.db
        .updateTable('durable_work')
        .set({ owner: this.owner, lease_until: now + this.leaseMs, attempts: Number(row.attempts) + 1 })
        .where('id', '=', row.id)
        .where('status', '=', 'running')
        .where('lease_until', '<', now)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) continue;
      this.active.add(row.id);
      const work: ClaimedWork = {
        id: row.id,
        kind: row.kind,
        payload: JSON.parse(row.payload) as unknown,
        attempts: Number(row.attempts) + 1,
      };
      this.logger?.info({ id: row.id, kind: row.kind, attempts: work.attempts }, 'picked up unfinished work');
      const done = this.run(work);
      this.running.add(done);
      void done.finally(() => this.running.delete(done));
    }
  }

  private async run(work: ClaimedWork): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    let outcome: WorkOutcome;
    try {
      if (work.attempts > maxAttempts) {
        this.logger?.warn({ id: work.id, kind: work.kind }, 'durable work given up after repeated attempts');
        await this.gaveUp.get(work.kind)?.(work);
        outcome = 'failed';
      } else {
        outcome = await (this.handlers.get(work.kind) as Handler)(work);
      }
    } catch (error) {
      this.logger?.warn({ id: work.id, err: errorMessage(error) }, 'durable work failed');
      outcome = 'failed';
    }
    if (outcome === 'taken') this.active.delete(work.id);
    else if (outcome === 'released' || outcome === 'busy') await this.release(work.id, outcome === 'busy');
    else await this.finish(work.id, outcome);
  }
}
