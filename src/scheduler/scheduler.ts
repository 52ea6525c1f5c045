// Cron tasks: stored, scheduled by a trigger (croner in this process, or BullMQ across instances),
// each fire an agent turn in the task's own session (channel "cron"), its outcome recorded on the
// task once per fire. A failed run never escapes a fire.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, conflict, errorMessage, notFound } from '../core/errors.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { sessionKey } from '../turns/session-key.ts';
import { validateCronExpression } from './cron-expression.ts';
import {
  FIRES_REMEMBERED_MS,
  type CronRun,
  type CronStore,
  type CronTaskFields,
  type RunRecord,
  type StoredCronTask,
} from './cron-store.ts';
import { CronerTrigger } from './croner-trigger.ts';
import type { ClaimedWork, DurableWork, WorkOutcome } from '../storage/durable-work.ts';
import type { CronTrigger } from './cron-trigger.ts';
import type { CronTaskView } from './cron-types.ts';

/** Tries to record a run before giving up, 0.5 s, 1 s and 1.5 s apart. */
const RECORD_ATTEMPTS = 4;

export type { CronTaskView } from './cron-types.ts';

export interface CronTaskInput extends CronTaskFields {
  id?: string | undefined;
  /** Created disabled: it never fires until enabled. */
  disabled?: boolean | undefined;
}

export interface SchedulerOptions {
  /** A run still going after this long is aborted and recorded as a failure. */
  runTimeoutMs?: number;
  /** What fires the tasks; by default croner jobs in this process. */
  trigger?: CronTrigger;
  /** On stop, how long runs in flight may go on before they are aborted (default 0: at once). */
  stopGraceMs?: number;
  /**
   * Fires are recorded here before they run (one instance runs each), and a fire whose instance
   * died is run again by another instance (or the next start).
   */
  work?: DurableWork;
  logger?: Logger;
}

function newTaskId(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return `${slug || 'task'}-${randomBytes(3).toString('hex')}`;
}

export class CronScheduler {
  private readonly trigger: CronTrigger;
  private readonly logger: Logger;
  private readonly running = new Set<{ controller: AbortController; done: Promise<void> }>();
  private stopped = false;

  constructor(
    private readonly store: CronStore,
    private readonly agents: AgentDirectory,
    private readonly turns: TurnRunner,
    private readonly options: SchedulerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.trigger = options.trigger ?? new CronerTrigger(options.logger);
    agents.onDeleted(async (agentId) => {
      for (const task of await this.store.list()) {
        if (task.target === agentId) await this.deleteTask(task.id);
      }
    });
  }

  /** Schedules every enabled task in the store. */
  async start(): Promise<void> {
    this.options.work?.handle(
      'cron',
      (work) => this.resume(work),
      async (work) => this.giveUp(work),
    );
    await this.trigger.start(
      () => this.store.list(),
      (taskId, scheduledAt) => this.fire(taskId, scheduledAt),
    );
  }

  /** Fires nothing more; runs in flight get the grace time, then are aborted and recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    const triggerStopped = this.trigger.stop();
    const settled = Promise.all([...this.running].map((run) => run.done));
    const grace = this.options.stopGraceMs ?? 0;
    if (grace > 0) {
      const timer = new AbortController();
      await Promise.race([settled, sleep(grace, undefined, { signal: timer.signal }).catch(() => undefined)]);
      timer.abort();
    }
    for (const run of this.running) run.controller.abort(new Error('the scheduler stopped'));
    await Promise.all([...this.running].map((run) => run.done));
    await triggerStopped;
  }

  async list(filter: { agentId?: string | undefined } = {}): Promise<CronTaskView[]> {
    const tasks = await this.store.list();
    return tasks
      .filter((task) => filter.agentId === undefined || task.target === filter.agentId)
      .map((task) => this.view(task));
  }

  /** With `agentId`, the agent must exist and the task must target it. */
  async get(id: string, agentId?: string): Promise<CronTaskView> {
    return this.view(await this.find(id, agentId));
  }

  async create(input: CronTaskInput): Promise<CronTaskView> {
    const schedule = validateCronExpression(input.schedule);
    this.agents.get(input.target);
    const fields = { name: input.name, schedule, message: input.message, target: input.target };
    const id = input.id ?? newTaskId(input.name);
    if (!(await this.store.insert(id, fields, input.disabled === true)))
      throw conflict(`cron task "${id}" already exists`);
    const task = await this.find(id);
    try {
      await this.trigger.schedule(task);
    } catch (error) {
      // Never leave a task stored that nothing fires.
      await this.store.remove(id);
      throw unschedulable(error);
    }
    return this.view(task);
  }

  async remove(id: string, agentId?: string): Promise<void> {
    await this.find(id, agentId);
    await this.deleteTask(id);
  }

  async toggle(id: string, disabled: boolean, agentId?: string): Promise<CronTaskView> {
    const before = await this.find(id, agentId);
    await this.store.setDisabled(id, disabled);
    const task = await this.find(id);
    try {
      await this.trigger.schedule(task);
    } catch (error) {
      await this.store.setDisabled(id, before.disabled);
      throw unschedulable(error);
    }
    return this.view(task);
  }

  /** Runs a task once now, whether enabled or not, and returns the recorded task. */
  async runNow(id: string, agentId?: string): Promise<CronTaskView> {
    const task = await this.find(id, agentId);
    await this.track(task);
    return this.get(id);
  }

  /** The task's recent runs, newest first (the store keeps the last RUNS_KEPT). */
  async runs(id: string, agentId?: string): Promise<CronRun[]> {
    await this.find(id, agentId);
    return this.store.runs(id);
  }

  private async find(id: string, agentId?: string): Promise<StoredCronTask> {
    if (agentId !== undefined) this.agents.get(agentId);
    const task = await this.store.get(id);
    if (!task || (agentId !== undefined && task.target !== agentId)) {
      throw notFound(`cron task "${id}" not found`);
    }
    return task;
  }

  private async deleteTask(id: string): Promise<void> {
    // Unscheduled first: a fire that still comes finds no task and does nothing.
    await this.trigger.unschedule(id);
    await this.store.remove(id);
  }

  private view(task: StoredCronTask): CronTaskView {
    const next = task.disabled ? null : this.trigger.nextRun(task);
    return {
      id: task.id,
      name: task.name,
      schedule: task.schedule,
      message: task.message,
      target: task.target,
      disabled: task.disabled,
      nextRunAt: next ? next.toISOString() : null,
      createdAt: task.createdAt,
      updatedAt: task.updatedAt,
      lastRun: task.lastRun,
    };
  }

  /**
   * One fire from the trigger: nothing when the task is gone or disabled, or this fire is recorded
   * already (a fire run again after its instance died). Throws while stopping, so that a fire the
   * trigger can hand to another instance is retried there.
   */
  private async fire(taskId: string, scheduledAt: number): Promise<void> {
    if (this.stopped) throw new Error('the scheduler is stopping');
    // Past this, a second run of the fire could be recorded again: such a late fire is dropped.
    if (Date.now() - scheduledAt > FIRES_REMEMBERED_MS - 60_000) {
      this.logger.warn(
        { task: taskId, scheduledAt: new Date(scheduledAt) },
        'a cron fire too late to run was dropped',
      );
      return;
    }
    // A trigger may hand a fire over early (BullMQ does): it waits for its second, then reads the
    // task, so a task disabled or deleted before that second does not fire; and, in the same query,
    // whether the fire is recorded already (run again after its instance died).
    const early = scheduledAt - Date.now();
    if (early > 0) await sleep(early);
    if (this.stopped) throw new Error('the scheduler is stopping');
    const work = this.options.work;
    const id = fireId(taskId, scheduledAt);
    if (work && this.store.claimsInOneStatement) {
      // PostgreSQL: the task read and the fire claimed in one statement, the run recorded and the
      // claim marked done in another.
      const state = await this.store.claimFire(taskId, scheduledAt, work.newRow('cron', id, { taskId, scheduledAt }));
      if (!state.claimed || !state.task) return;
      work.adopt(id);
      const finish = { id, owner: work.owner };
      if (await this.track(state.task, scheduledAt, finish)) work.finishedElsewhere(id);
      else await work.finish(id, 'done');
      return;
    }
    const { task, recorded } = await this.store.fireState(taskId, scheduledAt);
    if (recorded || !task || task.disabled) return;
    // Taken by another instance already (BullMQ handed a stalled fire on while it still ran).
    if (work && !(await work.record('cron', id, { taskId, scheduledAt }))) return;
    await this.track(task, scheduledAt);
    await work?.finish(id, 'done');
  }

  /** A fire recorded by an instance that did not finish it: run now, unless too late or gone. */
  private async resume(claimed: ClaimedWork): Promise<WorkOutcome> {
    if (this.stopped) return 'released';
    const { taskId, scheduledAt } = claimed.payload as { taskId: string; scheduledAt: number };
    if ((await this.store.recordedFires(taskId, [scheduledAt])).size > 0) return 'done';
    const task = await this.store.get(taskId);
    if (!task || task.disabled) return 'failed';
    if (Date.now() - scheduledAt > FIRES_REMEMBERED_MS - 60_000) {
      await this.giveUp(claimed);
      return 'failed';
    }
    this.logger?.info(
      { task: taskId, scheduledAt: new Date(scheduledAt) },
      'an interrupted cron fire runs again',
    );
    await this.track(task, scheduledAt);
    return 'done';
  }

  /** Records an interrupted fire that will not run again as a failure, so it is not silently lost. */
  private async giveUp(claimed: ClaimedWork): Promise<void> {
    const { taskId, scheduledAt } = claimed.payload as { taskId: string; scheduledAt: number };
    const now = Date.now();
    await this.store.recordRun({
      taskId,
      scheduledAt,
      startedAt: now,
      endedAt: now,
      status: 'failure',
      error: 'the fire was interrupted (its instance stopped) and could not run again',
    });
  }

  /** Runs and records a task; true when the record also marked `finishWork` done (else the caller marks it). */
  private async track(
    task: StoredCronTask,
    scheduledAt?: number,
    finishWork?: RunRecord['finishWork'],
  ): Promise<boolean> {
    const controller = new AbortController();
    const done = this.execute(task, controller, scheduledAt, finishWork);
    const run = { controller, done: done.then(() => undefined) };
    this.running.add(run);
    try {
      return await done;
    } finally {
      this.running.delete(run);
    }
  }

  private async execute(
    task: StoredCronTask,
    controller: AbortController,
    scheduledAt?: number,
    finishWork?: RunRecord['finishWork'],
  ): Promise<boolean> {
    const timeoutMs = this.options.runTimeoutMs ?? 10 * 60_000;
    const timer = setTimeout(
      () => controller.abort(new Error(`the run did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const startedAt = Date.now();
    const info = { agentId: task.target, channel: 'cron', scope: 'main' };
    let outcome: { status: 'success'; reply: string } | { status: 'failure'; error: string };
    try {
      const output = await this.turns.complete({
        agentId: task.target,
        input: task.message,
        session: { key: sessionKey({ ...info, scopeId: task.id }), info },
        signal: controller.signal,
        metadata: {
          channel: 'cron',
          cronTaskId: task.id,
          ...(scheduledAt !== undefined ? { scheduledAt: String(scheduledAt) } : {}),
        },
      });
      outcome = { status: 'success', reply: output.text };
    } catch (error) {
      outcome = { status: 'failure', error: errorMessage(error) };
    } finally {
      clearTimeout(timer);
    }
    const record = { taskId: task.id, scheduledAt, startedAt, endedAt: Date.now(), finishWork, ...outcome };
    // The run happened: a database busy or away for a moment must not lose its record.
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.store.recordFire(record)).finished;
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS) {
          this.logger.warn({ task: task.id, err: errorMessage(error) }, 'could not record a cron run');
          return false;
        }
        await sleep(500 * attempt);
      }
    }
  }
}

const fireId = (taskId: string, scheduledAt: number): string => JSON.stringify(['cron', taskId, scheduledAt]);

function unschedulable(error: unknown): AppError {
  // The cause (a Redis error) goes to the log through the error handler, not into the answer.
  return new AppError('unavailable', 'the cron task could not be scheduled; try again', { cause: error });
}
