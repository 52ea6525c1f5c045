// One instance: a croner job per enabled task in this process, as the scheduler always had. A job
// never overlaps itself (protect): a fire due while the previous one still runs is skipped.
import { Cron } from 'croner';
import type { StoredCronTask } from './cron-store.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { CronTrigger, FireHandler } from './cron-trigger.ts';

/** Past this many skipped fires, a fire is counted at the last one found (a run hours long). */
const SKIPPED_SEARCH_LIMIT = 10_000;

export class CronerTrigger implements CronTrigger {
  private readonly jobs = new Map<string, Cron>();
  private fire: FireHandler | undefined;
  private stopped = false;

  constructor(private readonly logger: Logger = silentLogger) {}

  async start(load: () => Promise<readonly StoredCronTask[]>, fire: FireHandler): Promise<void> {
    this.fire = fire;
    for (const task of await load()) await this.schedule(task);
  }

  schedule(task: StoredCronTask): Promise<void> {
    this.drop(task.id);
    if (task.disabled || this.stopped || !this.fire) return Promise.resolve();
    const fire = this.fire;
    try {
      // The fire time croner waits for next (ms), so that a fire knows its scheduled second.
      let planned: number | undefined;
      const job = new Cron(task.schedule, { protect: true, catch: true }, async (self: Cron) => {
        const now = Date.now();
        // Fires skipped while the last one ran leave `planned` behind: take the latest one due.
        let scheduledAt = planned ?? now;
        for (let step = 0; step < SKIPPED_SEARCH_LIMIT; step++) {
          const next = self.nextRun(new Date(scheduledAt))?.getTime();
          if (next === undefined || next > now) break;
          scheduledAt = next;
        }
        planned = self.nextRun(new Date(Math.max(now, scheduledAt)))?.getTime();
        await fire(task.id, scheduledAt);
      });
      planned = job.nextRun()?.getTime();
      this.jobs.set(task.id, job);
    } catch (error) {
      // Only a row edited outside the API can get here; keep the rest of the schedule running.
      this.logger.warn({ task: task.id, err: error }, 'cron task has a bad schedule');
    }
    return Promise.resolve();
  }

  unschedule(taskId: string): Promise<void> {
    this.drop(taskId);
    return Promise.resolve();
  }

  nextRun(task: StoredCronTask): Date | null {
    return this.jobs.get(task.id)?.nextRun() ?? null;
  }

  stop(): Promise<void> {
    this.stopped = true;
    for (const id of [...this.jobs.keys()]) this.drop(id);
    return Promise.resolve();
  }

  private drop(taskId: string): void {
    this.jobs.get(taskId)?.stop();
    this.jobs.delete(taskId);
  }
}
