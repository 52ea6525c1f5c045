// Fires cron tasks: one croner job per enabled task, each fire an agent turn in the task's own
// session (channel "cron"), its outcome recorded on the task. A failed run never escapes a fire.
import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import { conflict, errorMessage, notFound } from '../core/errors.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { sessionKey } from '../turns/session-key.ts';
import { validateCronExpression } from './cron-expression.ts';
import type { CronRun, CronStore, CronTaskFields, StoredCronTask } from './cron-store.ts';

export interface CronTaskView extends CronTaskFields {
  id: string;
  disabled: boolean;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
  lastRun: CronRun | null;
}

export interface CronTaskInput extends CronTaskFields {
  id?: string | undefined;
}

export interface SchedulerOptions {
  /** A run still going after this long is aborted and recorded as a failure. */
  runTimeoutMs?: number;
  logger?: { warn(object: object, message: string): void };
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
  private readonly jobs = new Map<string, Cron>();
  private readonly running = new Set<{ controller: AbortController; done: Promise<void> }>();
  private stopped = false;

  constructor(
    private readonly store: CronStore,
    private readonly agents: AgentDirectory,
    private readonly turns: TurnRunner,
    private readonly options: SchedulerOptions = {},
  ) {
    agents.onDeleted(async (agentId) => {
      for (const task of await this.store.list()) {
        if (task.target === agentId) await this.deleteTask(task.id);
      }
    });
  }

  /** Schedules every enabled task in the store. */
  async start(): Promise<void> {
    for (const task of await this.store.list()) this.schedule(task);
  }

  /** Stops every job, aborts runs in flight and waits for them to record. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs.values()) job.stop();
    this.jobs.clear();
    for (const run of this.running) run.controller.abort(new Error('the scheduler stopped'));
    await Promise.all([...this.running].map((run) => run.done));
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
    if (!(await this.store.insert(id, fields))) throw conflict(`cron task "${id}" already exists`);
    const task = await this.find(id);
    this.schedule(task);
    return this.view(task);
  }

  async remove(id: string, agentId?: string): Promise<void> {
    await this.find(id, agentId);
    await this.deleteTask(id);
  }

  async toggle(id: string, disabled: boolean, agentId?: string): Promise<CronTaskView> {
    await this.find(id, agentId);
    await this.store.setDisabled(id, disabled);
    const task = await this.find(id);
    this.schedule(task);
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
    this.jobs.get(id)?.stop();
    this.jobs.delete(id);
    await this.store.remove(id);
  }

  private view(task: StoredCronTask): CronTaskView {
    const next = task.disabled ? null : (this.jobs.get(task.id)?.nextRun() ?? null);
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

  /** (Re)creates the job of a task: a disabled task has none. */
  private schedule(task: StoredCronTask): void {
    this.jobs.get(task.id)?.stop();
    this.jobs.delete(task.id);
    if (task.disabled || this.stopped) return;
    try {
      const job = new Cron(task.schedule, { protect: true, catch: true }, async () => {
        const current = await this.store.get(task.id);
        if (current && !current.disabled && !this.stopped) await this.track(current);
      });
      this.jobs.set(task.id, job);
    } catch (error) {
      // Only a row edited outside the API can get here; keep the rest of the schedule running.
      this.options.logger?.warn({ task: task.id, err: error }, 'cron task has a bad schedule');
    }
  }

  private track(task: StoredCronTask): Promise<void> {
    const controller = new AbortController();
    const run = { controller, done: this.execute(task, controller) };
    this.running.add(run);
    return run.done.finally(() => this.running.delete(run));
  }

  private async execute(task: StoredCronTask, controller: AbortController): Promise<void> {
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
        metadata: { channel: 'cron', cronTaskId: task.id },
      });
      outcome = { status: 'success', reply: output.text };
    } catch (error) {
      outcome = { status: 'failure', error: errorMessage(error) };
    } finally {
      clearTimeout(timer);
    }
    try {
      await this.store.recordRun({ taskId: task.id, startedAt, endedAt: Date.now(), ...outcome });
    } catch (error) {
      this.options.logger?.warn({ task: task.id, err: error }, 'could not record a cron run');
    }
  }
}
