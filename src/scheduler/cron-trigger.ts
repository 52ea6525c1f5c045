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
 *
 * Croner takes tens of microseconds a call (time zone conversions), and a clustered fire asks
 * several times (BullMQ's next due time, the catch-up check), as often as tasks fire. So answers
 * are kept: the first fire strictly after `after` is the same for every `after` from the time asked
 * up to the answer (no fire lies between them), so the last answer of a schedule serves every task
 * on it asking within that span; and the fire following a fire time (what a catch-up walk asks, task
 * after task over the same seconds) is kept per fire time.
 */
export class FireTimes {
  private readonly jobs = new Map<string, ScheduleTimes>();

  /** The first fire time of `schedule` strictly after `after` (ms), in `timeZone` (default: the server's). */
  next(schedule: string, timeZone: string | undefined, after: number): number | undefined {
    const key = `${timeZone ?? ''} ${schedule}`;
    let job = this.jobs.get(key);
    if (!job) {
      if (this.jobs.size >= 10_000) this.jobs.clear();
      const cron = new Cron(schedule, { paused: true, ...(timeZone ? { timezone: timeZone } : {}) });
      job = { cron, from: Number.POSITIVE_INFINITY, next: Number.NEGATIVE_INFINITY, following: new Map() };
      this.jobs.set(key, job);
    }
    if (after >= job.from && after < job.next) return job.next;
    const known = job.following.get(after);
    if (known !== undefined) return known;
    const next = job.cron.nextRun(new Date(after))?.getTime();
    if (next === undefined) return undefined;
    job.from = after;
    job.next = next;
    if (job.following.size >= FOLLOWING_KEPT) job.following.clear();
    job.following.set(after, next);
    return next;
  }
}

interface ScheduleTimes {
  cron: Cron;
  /** The last answer (`next`) and the time it was asked for (`from`). */
  from: number;
  next: number;
  /** Answers by the time asked for. */
  following: Map<number, number>;
}

/** Answers kept per schedule (a catch-up walk of an every-second task over 15 minutes asks 900). */
const FOLLOWING_KEPT = 2_000;
