// Clustered mode: each enabled cron task is a BullMQ job scheduler in the deployment's one queue
// (keys under cluster.key_prefix), and a worker on every instance runs the fires. BullMQ hands each
// fire to one worker; a fire whose worker dies is moved back by the stalled-job check within seconds
// and run elsewhere; the scheduler records a fire once (task, scheduled time), so one run twice is
// not recorded twice. Fires BullMQ skips (it schedules the next one after "now" when a fire starts
// late) are added back as catch-up jobs, so none is lost to a dead instance or a backlog.
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import type { Locks } from '../cluster/locks.ts';
import { errorMessage } from '../core/errors.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { StoredCronTask } from './cron-store.ts';
import { FireTimes, serverTimeZone, type CronTrigger, type FireHandler } from './cron-trigger.ts';

/** What the trigger needs of the cluster module (clustered mode). */
export interface BullMqCluster {
  readonly prefix: string;
  readonly instanceId: string;
  readonly locks: Locks;
  readonly redis: Redis;
  connect(role: string, overrides?: RedisOptions): Redis;
}

export interface BullMqTriggerOptions {
  /** Fires one instance holds at once (default 200): a fire mostly waits (its second, a model, the database). */
  concurrency?: number;
  /** A running fire's lock in Redis, renewed at half of it; a dead worker's fire moves on after it (default 5000). */
  lockDurationMs?: number;
  /** How often a worker looks for fires whose lock expired (default 1000). */
  stalledIntervalMs?: number;
  /** How often the schedulers are checked against the tasks table (default 60000; one instance does it). */
  reconcileIntervalMs?: number;
  /** Fires skipped longer ago than this are not caught up (default 60000): downtime is not replayed. */
  catchUpWindowMs?: number;
  /** The zone schedules fire in (default: this server's). */
  timeZone?: string;
  logger?: Logger;
}

interface FireData {
  taskId: string;
  /** On a scheduler's jobs: its schedule and zone, to find fires it skipped. */
  schedule?: string;
  timeZone?: string;
  /** On catch-up jobs: the fire time. A scheduler's job carries its time in its id. */
  scheduledAt?: number;
}

const QUEUE = 'cron';
/** Catch-up jobs added from one late fire at most (an every-second task 15 minutes behind). */
const CATCH_UP_LIMIT = 1000;
/**
 * A fire's job is due this long before the fire; the scheduler checks the task and waits out the
 * rest. Redis ends a worker's blocking wait for a delayed job only at its timer tick (hz 10: up to
 * 100 ms late), and a second with many fires takes a while to hand out.
 */
const LEAD_MS = 500;

/** Every fire job: removed once done; a failed attempt (the database away, an instance stopping) retried. */
const FIRE_JOB: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
  attempts: 5,
  backoff: { type: 'fixed', delay: 250 },
};

/** The id BullMQ gives a scheduler's job for the fire at `scheduledAt`: repeat:<id>:<due time>. */
const fireJobId = (taskId: string, scheduledAt: number): string =>
  `repeat:${taskId}:${scheduledAt - LEAD_MS}`;

function scheduledTimeOf(job: Job<FireData>): number {
  if (typeof job.data.scheduledAt === 'number') return job.data.scheduledAt;
  const id = job.id ?? '';
  const due = Number(id.slice(id.lastIndexOf(':') + 1));
  return (Number.isSafeInteger(due) && due > 0 ? due : job.timestamp + (job.opts.delay ?? 0)) + LEAD_MS;
}

export class BullMqTrigger implements CronTrigger {
  private readonly times = new FireTimes();
  private readonly timeZone: string;
  private queue: Queue<FireData> | undefined;
  private worker: Worker<FireData> | undefined;
  private reconciler: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly warned = new Map<string, number>();
  private load: (() => Promise<readonly StoredCronTask[]>) | undefined;
  private readonly logger: Logger;

  constructor(
    private readonly cluster: BullMqCluster,
    private readonly options: BullMqTriggerOptions = {},
  ) {
    this.timeZone = options.timeZone ?? serverTimeZone();
    this.logger = options.logger ?? silentLogger;
  }

  async start(load: () => Promise<readonly StoredCronTask[]>, fire: FireHandler): Promise<void> {
    this.load = load;
    // BullMQ puts ":" between prefix and queue name.
    const prefix = this.cluster.prefix.replace(/:+$/, '') || 'agent-service';
    // Due times: croner's fire times (as in one instance and the preview), LEAD_MS early.
    const settings = {
      repeatStrategy: (millis: number, repeat: { pattern?: string; tz?: string }) => {
        if (repeat.pattern === undefined) return undefined;
        const next = this.times.next(repeat.pattern, repeat.tz, millis + LEAD_MS);
        return next === undefined ? undefined : next - LEAD_MS;
      },
    };
    this.queue = new Queue<FireData>(QUEUE, {
      connection: this.cluster.connect('cron-queue'),
      prefix,
      settings,
    });
    this.queue.on('error', (error) => this.warn('cron queue error', error));
    this.worker = new Worker<FireData>(QUEUE, (job) => this.process(job, fire), {
      // A worker blocks waiting for jobs: its connection must retry forever (BullMQ requires it).
      connection: this.cluster.connect('cron-worker', { maxRetriesPerRequest: null }),
      prefix,
      settings,
      name: this.cluster.instanceId,
      concurrency: this.options.concurrency ?? 200,
      lockDuration: this.options.lockDurationMs ?? 5_000,
      stalledInterval: this.options.stalledIntervalMs ?? 1_000,
      // A scheduler's fire is never failed for stalling; a catch-up fire only after this many deaths.
      maxStalledCount: 5,
    });
    this.worker.on('error', (error) => this.warn('cron worker error', error));
    this.worker.on('failed', (job, error) => {
      if (job) this.warn('a cron fire failed', error, { task: job.data.taskId, job: job.id });
    });
    // An instance starts with Redis away (its /ready says so): reconciling is retried until it works.
    await this.reconcileOrRetry();
    this.reconciler = setInterval(() => {
      this.reconcile().catch((error: unknown) => this.warn('cron schedulers could not be reconciled', error));
    }, this.options.reconcileIntervalMs ?? 60_000);
    this.reconciler.unref();
  }

  private async reconcileOrRetry(): Promise<void> {
    try {
      await this.reconcile();
    } catch (error) {
      this.warn('cron schedulers could not be reconciled; retrying in 5 s', error);
      this.retry = setTimeout(() => void this.reconcileOrRetry(), 5_000);
      this.retry.unref();
    }
  }

  async schedule(task: StoredCronTask): Promise<void> {
    if (task.disabled) return this.unschedule(task.id);
    await this.upsert(task);
  }

  async unschedule(taskId: string): Promise<void> {
    await this.requireQueue().removeJobScheduler(taskId);
  }

  nextRun(task: StoredCronTask): Date | null {
    const next = this.times.next(task.schedule, this.timeZone, Date.now());
    return next === undefined ? null : new Date(next);
  }

  async stop(): Promise<void> {
    clearInterval(this.reconciler);
    clearTimeout(this.retry);
    // Waits for the fires this worker is running (the scheduler aborts them past its grace time),
    // but not for a Redis that is away: BullMQ would wait for it; the cluster closes the connections.
    let closed = false;
    const closing = Promise.allSettled([this.worker?.close(), this.queue?.close()]).then(() => {
      closed = true;
    });
    while (!closed && this.cluster.redis.status === 'ready') await Promise.race([closing, sleep(200)]);
  }

  private requireQueue(): Queue<FireData> {
    if (!this.queue) throw new Error('the cron trigger is not started');
    return this.queue;
  }

  private async upsert(task: StoredCronTask): Promise<void> {
    await this.requireQueue().upsertJobScheduler(
      task.id,
      { pattern: task.schedule, tz: this.timeZone },
      {
        name: 'fire',
        data: { taskId: task.id, schedule: task.schedule, timeZone: this.timeZone },
        opts: FIRE_JOB,
      },
    );
  }

  private async process(job: Job<FireData>, fire: FireHandler): Promise<void> {
    const scheduledAt = scheduledTimeOf(job);
    const { taskId, schedule, timeZone } = job.data;
    if (job.repeatJobKey && schedule) await this.catchUp(taskId, schedule, timeZone, scheduledAt);
    await fire(taskId, scheduledAt);
  }

  /**
   * When a scheduler's fire starts after the following fire was due, BullMQ has scheduled the next
   * one after now: the fires in between are added as jobs of their own (ids as BullMQ gives them,
   * so a fire still queued or running is not added twice; one already recorded is skipped by the
   * scheduler).
   */
  private async catchUp(
    taskId: string,
    schedule: string,
    timeZone: string | undefined,
    scheduledAt: number,
  ): Promise<void> {
    const now = Date.now();
    const following = this.times.next(schedule, timeZone, scheduledAt);
    if (following === undefined || following - LEAD_MS > now) return;
    const queue = this.requireQueue();
    const due = (await queue.getJobScheduler(taskId))?.next;
    if (typeof due !== 'number') return;
    const oldest = now - (this.options.catchUpWindowMs ?? 60_000);
    const jobs: Array<{ name: string; data: FireData; opts: JobsOptions }> = [];
    for (
      let at: number | undefined = following;
      at !== undefined && at < due + LEAD_MS;
      at = this.times.next(schedule, timeZone, at)
    ) {
      if (at < oldest) continue;
      jobs.push({
        name: 'catch-up',
        data: { taskId, scheduledAt: at },
        opts: { ...FIRE_JOB, jobId: fireJobId(taskId, at) },
      });
      if (jobs.length >= CATCH_UP_LIMIT) break;
    }
    if (jobs.length === 0) return;
    await queue.addBulk(jobs);
    this.logger.info({ task: taskId, fires: jobs.length }, 'cron fires caught up');
  }

  /**
   * Makes the schedulers match the tasks table: one per enabled task with its schedule, none else.
   * Under a cluster lock, and at most once per half interval across instances, so instances starting
   * together do it once. Schedulers are read before tasks, so a task created meanwhile is kept.
   */
  private async reconcile(): Promise<void> {
    const load = this.load;
    if (!load) return;
    const marker = `${this.cluster.prefix}cron:reconciled`;
    const markFor = Math.max(Math.floor((this.options.reconcileIntervalMs ?? 60_000) / 2), 1_000);
    await this.cluster.locks.run(
      'cron:reconcile',
      async () => {
        if ((await this.cluster.redis.exists(marker)) === 1) return;
        const queue = this.requireQueue();
        const schedulers = new Map((await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s]));
        const changes: Array<() => Promise<unknown>> = [];
        const now = Date.now();
        for (const task of await load()) {
          if (task.disabled) continue;
          const current = schedulers.get(task.id);
          schedulers.delete(task.id);
          const same = current?.pattern === task.schedule && current.tz === this.timeZone;
          // A scheduler whose next fire is long past with no job for it lost its chain (an error
          // while scheduling the following fire): upserting it again starts a new one.
          const lost =
            same &&
            typeof current.next === 'number' &&
            current.next < now - 30_000 &&
            !(await queue.getJob(fireJobId(task.id, current.next + LEAD_MS)));
          if (!same || lost) changes.push(() => this.upsert(task));
        }
        for (const orphan of schedulers.keys()) changes.push(() => queue.removeJobScheduler(orphan));
        for (let start = 0; start < changes.length; start += 100)
          await Promise.all(changes.slice(start, start + 100).map((change) => change()));
        await this.cluster.redis.set(marker, this.cluster.instanceId, 'PX', markFor);
        if (changes.length > 0) this.logger.info({ changes: changes.length }, 'cron schedulers reconciled');
      },
      { waitMs: 120_000 },
    );
  }

  /** Logs a warning, the same one at most once a minute (BullMQ repeats a connection error every second). */
  private warn(message: string, error: unknown, extra: object = {}): void {
    const err = errorMessage(error);
    const key = `${message} ${err}`;
    const now = Date.now();
    if ((this.warned.get(key) ?? 0) > now - 60_000) return;
    if (this.warned.size > 1000) this.warned.clear();
    this.warned.set(key, now);
    this.logger.warn({ ...extra, err }, message);
  }
}
