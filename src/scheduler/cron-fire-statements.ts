// PostgreSQL statements of clustered cron fires, each for many fires at once. The fires of one
// second wake together and their turns end close together, so the claims (and the records) asked for
// in one turn of the event loop go to the database as one statement: a round trip each cost the
// instance more CPU than the claim or the record itself.
import { sql } from 'kysely';
import type { CronTasksTable, Db } from '../storage/database.ts';
import type { DurableWorkTable } from '../storage/durable-work.ts';

/** Items sent in one statement at most (its parameters are arrays, so this bounds its size only). */
const BATCH = 500;

/**
 * Collects the calls of one turn of the event loop and hands them to `send` together. `send` gets
 * at most BATCH items and answers in their order; when it throws, every call of that batch rejects.
 * `part` splits the items of one turn into batches sent one after another (e.g. one per task).
 */
export function batched<I, O>(
  send: (items: I[]) => Promise<O[]>,
  part: (items: I[]) => I[][] = (items) => [items],
): (item: I) => Promise<O> {
  let pending: Array<{ item: I; resolve: (out: O) => void; reject: (error: unknown) => void }> = [];
  const flush = async (): Promise<void> => {
    const calls = pending;
    pending = [];
    const byItem = new Map(calls.map((call) => [call.item, call]));
    for (const items of part(calls.map((call) => call.item)))
      for (let start = 0; start < items.length; start += BATCH) {
        const batch = items.slice(start, start + BATCH);
        try {
          const outs = await send(batch);
          batch.forEach((item, index) => byItem.get(item)?.resolve(outs[index] as O));
        } catch (error) {
          for (const item of batch) byItem.get(item)?.reject(error);
        }
      }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (pending.length === 0) setImmediate(() => void flush());
      pending.push({ item, resolve, reject });
    });
}

/** One fire to claim: the task read and its durable work row inserted unless recorded, disabled or taken. */
export interface ClaimInput {
  taskId: string;
  scheduledAt: number;
  work: DurableWorkTable;
}

export type ClaimRow = CronTasksTable & { work_id: string; recorded: boolean; claimed: boolean };

/** Claims of distinct work ids, inserted in id order (two instances' overlapping batches cannot deadlock). */
export async function claimFires(db: Db, batch: readonly ClaimInput[]): Promise<ClaimRow[]> {
  const column = <T>(pick: (claim: ClaimInput) => T): T[] => batch.map(pick);
  const { rows } = await sql<ClaimRow>`
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
    db,
  );
  return rows;
}

/** One run to record (CronStore.recordRun's, with its texts capped). */
export interface RecordInput {
  taskId: string;
  scheduledAt: number | null;
  startedAt: number;
  endedAt: number;
  status: 'success' | 'failure';
  reply: string | null;
  error: string | null;
  /** The fire's durable work row, marked done by its owner in the same statement. */
  workId: string | null;
  workOwner: string | null;
}

export type RecordOutcome = 'recorded' | 'duplicate' | 'gone';

/** A run's outcome, and whether its work row was marked done by the same statement. */
export interface RecordResult {
  outcome: RecordOutcome;
  finished: boolean;
}

/**
 * Records runs of distinct tasks in one statement, atomic by itself: the tasks' rows locked (in id
 * order, so two instances' batches cannot deadlock), each run inserted unless its fire has one, and
 * only then its task's last-run columns set and its older runs pruned (the `keep` newest of those
 * before it kept, and any scheduled since `remembered`); each fire's work row marked done unless
 * another statement holds it (`skip locked`): durable work renews the leases of many rows at once,
 * and waiting here for one while holding others could deadlock with it. A row left unmarked
 * (`finished` false) is marked by the caller on its own.
 */
export async function recordRuns(
  db: Db,
  batch: readonly RecordInput[],
  keep: number,
  remembered: number,
): Promise<RecordResult[]> {
  const column = <T>(pick: (run: RecordInput) => T): T[] => batch.map(pick);
  const { rows } = await sql<{ task_id: string; found: boolean; inserted: boolean; finished: boolean }>`
    with input as (
      select * from unnest(${column((r) => r.taskId)}::text[], ${column((r) => r.startedAt)}::bigint[],
                           ${column((r) => r.endedAt)}::bigint[], ${column((r) => r.status)}::text[],
                           ${column((r) => r.reply)}::text[], ${column((r) => r.error)}::text[],
                           ${column((r) => r.scheduledAt)}::bigint[], ${column((r) => r.workId)}::text[],
                           ${column((r) => r.workOwner)}::text[])
        as i(task_id, started_at, ended_at, status, reply, error, scheduled_at, work_id, work_owner)
    ), task as (
      select t.id from cron_tasks t where t.id in (select task_id from input) order by t.id for update
    ), run as (
      insert into cron_runs (task_id, started_at, ended_at, status, reply, error, scheduled_at)
      select i.task_id, i.started_at, i.ended_at, i.status, i.reply, i.error, i.scheduled_at
        from input i join task on task.id = i.task_id
       order by i.task_id
      on conflict (task_id, scheduled_at) do nothing
      returning task_id
    ), updated as (
      update cron_tasks t
         set last_run_at = i.started_at, last_run_ended_at = i.ended_at, last_run_status = i.status,
             last_run_error = i.error, last_run_reply = i.reply, last_run_ms = i.ended_at - i.started_at
        from input i
       where t.id = i.task_id and i.task_id in (select task_id from run)
    ), pruned as (
      delete from cron_runs c
       where c.task_id in (select task_id from run)
         and c.id not in (select k.id from cron_runs k where k.task_id = c.task_id order by k.id desc limit ${keep})
         and (c.scheduled_at is null or c.scheduled_at < ${remembered}::bigint)
    ), free as (
      select d.id from durable_work d join input i on d.id = i.work_id and d.owner = i.work_owner
         for update of d skip locked
    ), finished as (
      update durable_work d set status = 'done', updated_at = i.ended_at
        from input i
       where d.id = i.work_id and d.id in (select id from free)
      returning d.id
    )
    select i.task_id, i.task_id in (select id from task) as found,
           i.task_id in (select task_id from run) as inserted,
           coalesce(i.work_id in (select id from finished), false) as finished
      from input i`.execute(db);
  const byTask = new Map(rows.map((row) => [row.task_id, row]));
  return batch.map((run) => {
    const row = byTask.get(run.taskId);
    const outcome = !row?.found ? 'gone' : row.inserted ? 'recorded' : 'duplicate';
    return { outcome, finished: row?.finished === true };
  });
}

/** Runs split so that no task has two in one statement (each statement updates a task's row once). */
export function oneRunPerTask(runs: RecordInput[]): RecordInput[][] {
  const parts: RecordInput[][] = [];
  const seen: Array<Set<string>> = [];
  for (const run of runs) {
    let index = seen.findIndex((tasks) => !tasks.has(run.taskId));
    if (index === -1) {
      index = parts.length;
      parts.push([]);
      seen.push(new Set());
    }
    parts[index]?.push(run);
    seen[index]?.add(run.taskId);
  }
  return parts;
}
