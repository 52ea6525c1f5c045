// What makes cron tasks fire, behind one small seam: croner jobs in this process (one instance), or
// BullMQ job schedulers shared by every instance (clustered mode). The scheduler above it owns the
// tasks, runs a fire and records it; a trigger only says when.
import { Cron } from 'croner';
import type { StoredCronTask } from './cron-store.ts';

/** Runs one fire of a task, scheduled at `scheduledAt` (ms). Rejects when the fire should be retried. */
export type FireHandler = (taskId: string, scheduledAt: number) => Promise<void>;

export interface CronTrigger {
  /** Begins firing the stored tasks (`load` reads them all, enabled or not) through `fire`. */
  start(load: () => Promise<readonly StoredCronTask[]>, fire: FireHandler): Promise<void>;
  /** Creates or updates the schedule of a task; a disabled task gets none. */
  schedule(task: StoredCronTask): Promise<void>;
  unschedule(taskId: string): Promise<void>;
  /** When an enabled task fires next. */
  nextRun(task: StoredCronTask): Date | null;
  /** Fires nothing more; resolves once fires already handed to `fire` have settled. */
  stop(): Promise<void>;
}

/** The zone schedules fire in: this server's (GET /cron/preview reports the same). */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * First fire times of schedules, computed by croner, so both triggers and the preview agree to the
 * second. Paused jobs are kept per schedule and zone (cleared past 10,000 distinct ones).
 */
export class FireTimes {
  private readonly jobs = new Map<string, Cron>();

  /** The first fire time of `schedule` strictly after `after` (ms), in `timeZone` (default: the server's). */
  next(schedule: string, timeZone: string | undefined, after: number): number | undefined {
    const key = `${timeZone ?? ''} ${schedule}`;
    let job = this.jobs.get(key);
    if (!job) {
      if (this.jobs.size >= 10_000) this.jobs.clear();
      job = new Cron(schedule, { paused: true, ...(timeZone ? { timezone: timeZone } : {}) });
      this.jobs.set(key, job);
    }
    return job.nextRun(new Date(after))?.getTime();
  }
}
