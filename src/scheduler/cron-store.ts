// Cron tasks and their recent runs in the database. A task row carries its last run so the list
// needs no join; cron_runs keeps the last RUNS_KEPT runs of each task.
import { PostgresAdapter, sql } from 'kysely';
import type { CronTasksTable, Db } from '../storage/database.ts';
import type { DurableWorkTable } from '../storage/durable-work.ts';
import type { CronRun, CronTaskFields } from './cron-types.ts';

export const REPLY_LIMIT = 2000;
export const RUNS_KEPT = 20;
/**
 * Runs of scheduled fires are kept at least this long beyond the last RUNS_KEPT, so that a fire run
 * twice (its instance seemed dead) is recorded once; the scheduler drops fires older than this.
 */
export const FIRES_REMEMBERED_MS = 15 * 60_000;

export type { CronRun, CronTaskFields } from './cron-types.ts';

export interface StoredCronTask extends CronTaskFields {
  id: string;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  lastRun: CronRun | null;
}

export interface RunRecord {
  taskId: string;
  /** The fire's scheduled time (ms): a task records each fire once. Absent for a run started by hand. */
  scheduledAt?: number | undefined;
  startedAt: number;
  endedAt: number;
  status: 'success' | 'failure';
  reply?: string;
  error?: string;
  /** PostgreSQL: the durable work row (id, owner) of this fire, marked done in the same statement. */
  finishWork?: { id: string; owner: string } | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function toTask(row: CronTasksTable): StoredCronTask {
  let lastRun: CronRun | null = null;
  if (row.last_run_at !== null && row.last_run_status !== null) {
    const endedAt = row.last_run_ended_at ?? row.last_run_at;
    lastRun = {
      startedAt: iso(row.last_run_at),
      endedAt: iso(endedAt),
      status: row.last_run_status === 'success' ? 'success' : 'failure',
      durationMs: row.last_run_ms ?? endedAt - row.last_run_at,
      ...(row.last_run_error !== null ? { error: row.last_run_error } : {}),
      ...(row.last_run_reply !== null ? { reply: row.last_run_reply } : {}),
    };
  }
  return {
    id: row.id,
    name: row.name,
    schedule: row.schedule,
    message: row.message,
    target: row.target,
    disabled: row.disabled !== 0,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastRun,
  };
}

/** What claimFire found: the task as it is now, whether the fire has a run, and whether this claim took it. */
export interface FireClaim {
  task: StoredCronTask | undefined;
  recorded: boolean;
  claimed: boolean;
}

interface PendingClaim {
  taskId: string;
  scheduledAt: number;
  work: DurableWorkTable;
  resolve: (claim: FireClaim) => void;
  reject: (error: unknown) => void;
}

/** Claims sent in one statement at most (its parameters are arrays, so this bounds its size only). */
const CLAIM_BATCH = 500;

/** Thrown inside the record transaction to roll it back. */
class DuplicateFire extends Error {}

const cap = (text: string | undefined): string | null =>
  text === undefined ? null : text.slice(0, REPLY_LIMIT);

export class CronStore {
  private readonly postgres: boolean;
  /** claimFire calls of this turn of the event loop, sent together. */
  private readonly claims: PendingClaim[] = [];

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async list(): Promise<StoredCronTask[]> {
    const rows = await this.db.selectFrom('cron_tasks').selectAll().orderBy('id').execute();
    return rows.map(toTask);
  }

  async get(id: string): Promise<StoredCronTask | undefined> {
    const row = await this.db.selectFrom('cron_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toTask(row) : undefined;
  }

  /** Inserts a task; false when the id is taken. */
  async insert(id: string, fields: CronTaskFields, disabled = false): Promise<boolean> {
    const now = this.now();
    const result = await this.db
      .insertInto('cron_tasks')
      .values({
        id,
        ...fields,
        disabled: disabled ? 1 : 0,
        created_at: now,
        updated_at: now,
        last_run_at: null,
        last_run_ended_at: null,
        last_run_status: null,
        last_run_error: null,
        last_run_reply: null,
        last_run_ms: null,
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async setDisabled(id: string, disabled: boolean): Promise<void> {
    await this.db
      .updateTable('cron_tasks')
      .set({ disabled: disabled ? 1 : 0, updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('cron_runs').where('task_id', '=', id).execute();
      await trx.deleteFrom('cron_tasks').where('id', '=', id).execute();
    });
  }

  /** A task as it is now and whether its fire at `scheduledAt` has a recorded run: one query. */
  async fireState(
    taskId: string,
    scheduledAt: number,
  ): Promise<{ task: StoredCronTask | undefined; recorded: boolean }> {
    const row = await this.db
      .selectFrom('cron_tasks')
      .selectAll()
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('cron_runs')
              .select('cron_runs.id')
              .where('cron_runs.task_id', '=', taskId)
              .where('cron_runs.scheduled_at', '=', scheduledAt),
          )
          .as('recorded'),
      )
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (!row) return { task: undefined, recorded: false };
    const { recorded, ...task } = row;
    return { task: toTask(task), recorded: recorded === true || Number(recorded) === 1 };
  }

  /** Whether claimFire and recordRun's finishWork are available (PostgreSQL: one statement each). */
  get claimsInOneStatement(): boolean {
    return this.postgres;
  }

  /**
   * PostgreSQL: fireState and the fire's durable work row inserted in one statement. The row is
   * inserted only when the task exists, is enabled and has no run of this fire; `claimed` is false
   * when it was not (or another instance holds it already).
   *
   * The fires of one second wake together, so the claims asked for in one turn of the event loop
   * go to the database as one statement (a round trip each cost more CPU than the claim itself).
   */
  claimFire(taskId: string, scheduledAt: number, work: DurableWorkTable): Promise<FireClaim> {
    return new Promise((resolve, reject) => {
      if (this.claims.length === 0) setImmediate(() => void this.claimBatch(this.claims.splice(0)));
      this.claims.push({ taskId, scheduledAt, work, resolve, reject });
    });
  }

  private async claimBatch(pending: PendingClaim[]): Promise<void> {
    // Two claims of one fire in a batch (a job handed over twice): the first one decides.
    const byId = new Map<string, PendingClaim>();
    const repeated: PendingClaim[] = [];
    for (const claim of pending) {
      if (byId.has(claim.work.id)) repeated.push(claim);
      else byId.set(claim.work.id, claim);
    }
    // Inserted in id order, so two instances claiming overlapping batches cannot deadlock.
    const unique = [...byId.values()].sort((x, y) => (x.work.id < y.work.id ? -1 : 1));
    const results = new Map<string, FireClaim>();
    try {
      for (let start = 0; start < unique.length; start += CLAIM_BATCH) {
        const batch = unique.slice(start, start + CLAIM_BATCH);
        for (const [id, claim] of await this.claimInOneStatement(batch)) results.set(id, claim);
      }
    } catch (error) {
      for (const claim of pending) claim.reject(error);
      return;
    }
    const unknown: FireClaim = { task: undefined, recorded: false, claimed: false };
    for (const claim of unique) claim.resolve(results.get(claim.work.id) ?? unknown);
    for (const claim of repeated)
      claim.resolve({ ...(results.get(claim.work.id) ?? unknown), claimed: false });
  }

  private async claimInOneStatement(batch: readonly PendingClaim[]): Promise<Map<string, FireClaim>> {
    const column = <T>(pick: (claim: PendingClaim) => T): T[] => batch.map(pick);
    const { rows } = await sql<CronTasksTable & { work_id: string; recorded: boolean; claimed: boolean }>`
      with input as (
        select * from unnest(${column((c) => c.taskId)}::text[], ${column((c) => c.scheduledAt)}::bigint[],
                             ${column((c) => c.work.id)}::text[], ${column((c) => c.work.kind)}::text[],
                             ${column((c) => c.work.payload)}::text[], ${column((c) => c.work.status)}::text[],
                             ${column((c) => c.work.owner)}::text[], ${column((c) => c.work.lease_until)}::bigint[],
                             ${column((c) => c.work.attempts)}::bigint[], ${column((c) => c.work.created_at)}::bigint[],
                             ${column((c) => c.work.updated_at)}::bigint[])
          as i(task_id, scheduled_at, work_id, kind, payload, status, owner, lease_until, attempts,
               created_at, updated_at)
      ), task as (
        select i.work_id, t.*, exists (select 1 from cron_runs r where r.task_id = t.id
                                           and r.scheduled_at = i.scheduled_at) as recorded
          from input i join cron_tasks t on t.id = i.task_id
      ), claimed as (
        insert into durable_work (id, kind, payload, status, owner, lease_until, attempts, created_at, updated_at)
        select i.work_id, i.kind, i.payload, i.status, i.owner, i.lease_until, i.attempts, i.created_at, i.updated_at
          from input i join task on task.work_id = i.work_id
         where not task.recorded and task.disabled = 0
         order by i.work_id
        on conflict (id) do nothing
        returning id
      )
      select task.*, exists (select 1 from claimed c where c.id = task.work_id) as claimed from task`.execute(
      this.db,
    );
    return new Map(
      rows.map(({ work_id, recorded, claimed, ...task }) => [
        work_id,
        { task: toTask(task), recorded: recorded === true, claimed: claimed === true },
      ]),
    );
  }

  /** Which of `scheduledAt` (fire times of the task) have a recorded run. */
  async recordedFires(taskId: string, scheduledAt: readonly number[]): Promise<Set<number>> {
    if (scheduledAt.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('cron_runs')
      .select('scheduled_at')
      .where('task_id', '=', taskId)
      .where('scheduled_at', 'in', scheduledAt)
      .execute();
    return new Set(rows.map((row) => Number(row.scheduled_at)));
  }

  /**
   * Records a run on the task and in its history: 'recorded'; 'duplicate' when this fire (task and
   * scheduled time) is recorded already, and 'gone' when the task was deleted; both change nothing.
   */
  async recordRun(run: RunRecord): Promise<'recorded' | 'duplicate' | 'gone'> {
    const reply = cap(run.reply);
    const error = cap(run.error);
    if (this.postgres) return this.recordRunInOneStatement(run, reply, error);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('cron_tasks')
          .set({
            last_run_at: run.startedAt,
            last_run_ended_at: run.endedAt,
            last_run_status: run.status,
            last_run_error: error,
            last_run_reply: reply,
            last_run_ms: run.endedAt - run.startedAt,
          })
          .where('id', '=', run.taskId)
          .executeTakeFirst();
        // The task was deleted while it ran: nothing to record against.
        if (Number(updated.numUpdatedRows) === 0) return 'gone';
        const inserted = await trx
          .insertInto('cron_runs')
          .values({
            task_id: run.taskId,
            started_at: run.startedAt,
            ended_at: run.endedAt,
            status: run.status,
            reply,
            error,
            scheduled_at: run.scheduledAt ?? null,
          })
          .onConflict((conflict) => conflict.columns(['task_id', 'scheduled_at']).doNothing())
          .executeTakeFirst();
        // Undo the task's last-run columns too: the first run of this fire stays the one shown.
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) throw new DuplicateFire();
        const keep = trx
          .selectFrom('cron_runs')
          .select('id')
          .where('task_id', '=', run.taskId)
          .orderBy('id', 'desc')
          .limit(RUNS_KEPT);
        const remembered = this.now() - FIRES_REMEMBERED_MS;
        await trx
          .deleteFrom('cron_runs')
          .where('task_id', '=', run.taskId)
          .where('id', 'not in', keep)
          .where((row) => row.or([row('scheduled_at', 'is', null), row('scheduled_at', '<', remembered)]))
          .execute();
        return 'recorded';
      });
    } catch (error) {
      if (error instanceof DuplicateFire) return 'duplicate';
      throw error;
    }
  }

  /**
   * recordRun on PostgreSQL in one statement (one round trip instead of five), atomic by itself:
   * the task row locked, the run inserted unless this fire has one, and only then the task's
   * last-run columns set and the older runs pruned (the RUNS_KEPT - 1 newest of those before it kept).
   */
  private async recordRunInOneStatement(
    run: RunRecord,
    reply: string | null,
    error: string | null,
  ): Promise<'recorded' | 'duplicate' | 'gone'> {
    const remembered = this.now() - FIRES_REMEMBERED_MS;
    const { rows } = await sql<{ found: number | string; inserted: number | string }>`
      with task as (
        select id from cron_tasks where id = ${run.taskId} for update
      ), run as (
        insert into cron_runs (task_id, started_at, ended_at, status, reply, error, scheduled_at)
        select id, ${run.startedAt}::bigint, ${run.endedAt}::bigint, ${run.status}::text, ${reply}::text,
               ${error}::text, ${run.scheduledAt ?? null}::bigint
          from task
        on conflict (task_id, scheduled_at) do nothing
        returning id
      ), updated as (
        update cron_tasks
           set last_run_at = ${run.startedAt}::bigint, last_run_ended_at = ${run.endedAt}::bigint,
               last_run_status = ${run.status}::text, last_run_error = ${error}::text,
               last_run_reply = ${reply}::text, last_run_ms = ${run.endedAt - run.startedAt}::bigint
         where id = ${run.taskId} and exists (select 1 from run)
      ), pruned as (
        delete from cron_runs
         where task_id = ${run.taskId} and exists (select 1 from run)
           and id not in (select id from cron_runs where task_id = ${run.taskId}
                           order by id desc limit ${RUNS_KEPT - 1})
           and (scheduled_at is null or scheduled_at < ${remembered}::bigint)
      )${
        run.finishWork
          ? sql`, finished as (
        update durable_work set status = 'done', updated_at = ${run.endedAt}::bigint
         where id = ${run.finishWork.id} and owner = ${run.finishWork.owner}
      )`
          : sql``
      }
      select (select count(*) from task) as found, (select count(*) from run) as inserted`.execute(this.db);
    const counts = rows[0];
    if (Number(counts?.found ?? 0) === 0) return 'gone';
    return Number(counts?.inserted ?? 0) === 0 ? 'duplicate' : 'recorded';
  }

  async runs(taskId: string): Promise<CronRun[]> {
    const rows = await this.db
      .selectFrom('cron_runs')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('id', 'desc')
      .limit(RUNS_KEPT)
      .execute();
    return rows.map((row) => ({
      ...(row.scheduled_at !== null ? { scheduledAt: iso(row.scheduled_at) } : {}),
      startedAt: iso(row.started_at),
      endedAt: iso(row.ended_at),
      status: row.status === 'success' ? 'success' : 'failure',
      durationMs: row.ended_at - row.started_at,
      ...(row.error !== null ? { error: row.error } : {}),
      ...(row.reply !== null ? { reply: row.reply } : {}),
    }));
  }
}
