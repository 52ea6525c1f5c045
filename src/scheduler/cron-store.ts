// Cron tasks and their recent runs in the database. A task row carries its last run so the list
// needs no join; cron_runs keeps the last RUNS_KEPT runs of each task.
import { PostgresAdapter } from 'kysely';
import type { CronTasksTable, Db } from '../storage/database.ts';
import type { DurableWorkTable } from '../storage/durable-work.ts';
import type { CronRun, CronTaskFields } from './cron-types.ts';
import {
  batched,
  claimFires,
  oneRunPerTask,
  recordRuns,
  type ClaimInput,
  type RecordInput,
  type RecordResult,
} from './cron-fire-statements.ts';

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

/** Thrown inside the record transaction to roll it back. */
class DuplicateFire extends Error {}

const cap = (text: string | undefined): string | null =>
  text === undefined ? null : text.slice(0, REPLY_LIMIT);

export class CronStore {
  private readonly postgres: boolean;
  /** PostgreSQL: claims and records of fires asked for in one turn of the event loop, sent together. */
  private readonly claim = batched((claims: ClaimInput[]) => this.claimTogether(claims));
  private readonly record = batched(
    (runs: RecordInput[]) => recordRuns(this.db, runs, RUNS_KEPT - 1, this.now() - FIRES_REMEMBERED_MS),
    oneRunPerTask,
  );

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
    return this.claim({ taskId, scheduledAt, work });
  }

  private async claimTogether(claims: ClaimInput[]): Promise<FireClaim[]> {
    // Two claims of one fire together (a job handed over twice): the first one decides.
    const first = new Map<string, ClaimInput>();
    for (const claim of claims) if (!first.has(claim.work.id)) first.set(claim.work.id, claim);
    const unique = [...first.values()].sort((x, y) => (x.work.id < y.work.id ? -1 : 1));
    const found = new Map(
      (await claimFires(this.db, unique)).map(({ work_id, recorded, claimed, ...task }) => [
        work_id,
        { task: toTask(task), recorded: recorded === true, claimed: claimed === true },
      ]),
    );
    const unknown: FireClaim = { task: undefined, recorded: false, claimed: false };
    return claims.map((claim) => {
      const answer = found.get(claim.work.id) ?? unknown;
      return first.get(claim.work.id) === claim ? answer : { ...answer, claimed: false };
    });
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
    return (await this.recordFire(run)).outcome;
  }

  /** recordRun, and whether `run.finishWork` was marked done with it (PostgreSQL; else it is not). */
  async recordFire(run: RunRecord): Promise<RecordResult> {
    const reply = cap(run.reply);
    const error = cap(run.error);
    if (this.postgres) return this.recordRunInOneStatement(run, reply, error);
    return { outcome: await this.recordInTransaction(run, reply, error), finished: false };
  }

  private async recordInTransaction(
    run: RunRecord,
    reply: string | null,
    error: string | null,
  ): Promise<'recorded' | 'duplicate' | 'gone'> {
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
   * recordRun on PostgreSQL in one statement (one round trip instead of five), atomic by itself, and
   * with the other runs recorded in the same turn of the event loop (cron-fire-statements.ts).
   */
  private recordRunInOneStatement(
    run: RunRecord,
    reply: string | null,
    error: string | null,
  ): Promise<RecordResult> {
    return this.record({
      taskId: run.taskId,
      scheduledAt: run.scheduledAt ?? null,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      status: run.status,
      reply,
      error,
      workId: run.finishWork?.id ?? null,
      workOwner: run.finishWork?.owner ?? null,
    });
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
