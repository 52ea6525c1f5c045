// Clustered mode: each enabled cron task is a BullMQ job scheduler in the deployment's one queue
// (keys under cluster.key_prefix), and a worker on every instance runs the fires. BullMQ hands each
// fire to one worker; a fire whose worker dies is moved back by the stalled-job check within seconds
// and run elsewhere; the scheduler records a fire once (task, scheduled time), so one run twice is
// not recorded twice. Fires BullMQ skips (it schedules the next one after "now" when a fire starts
// late) are added back as catch-up jobs, so none is lost to a dead instance or a backlog.
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import type { Locks } from '../cluster/locks.ts';
import { errorMessage } from '../core/errors.ts';
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
  /** Fires one instance runs at once (default 100): a fire mostly waits on a model or the database. */
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
  logger?: { info(object: object, message: string): void; warn(object: object, message: string): void };
}

interface FireData {
  taskId: string;
  /** On a scheduler's jobs: its schedule and zone, to find fires it skipped. */
  schedule?: string;
  timeZone?: string;
  /** Set on catch-up jobs; a scheduler's job carries its time in its id. */
  scheduledAt?: number;
}

const QUEUE = 'cron';
/** Catch-up jobs added from one late fire at most (an every-second task 15 minutes behind). */
const CATCH_UP_LIMIT = 1000;

/** Every fire job: removed once done; a failed attempt (the database away, an instance stopping) retried. */
const FIRE_JOB: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
  attempts: 5,
  backoff: { type: 'fixed', delay: 250 },
};

/** BullMQ names a scheduler's job repeat:<scheduler id>:<fire time>. */
const fireJobId = (taskId: string, scheduledAt: number): string => `repeat:${taskId}:${scheduledAt}`;

function scheduledTimeOf(job: Job<FireData>): number {
  if (typeof job.data.scheduledAt === 'number') return job.data.scheduledAt;
  const id = job.id ?? '';
  const fromId = Number(id.slice(id.lastIndexOf(':') + 1));
  return Number.isSafeInteger(fromId) && fromId > 0 ? fromId : job.timestamp + (job.opts.delay ?? 0);
}

export class BullMqTrigger implements CronTrigger {
  private readonly times = new FireTimes();
  private readonly timeZone: string;
  private queue: Queue<FireData> | undefined;
  private worker: Worker<FireData> | undefined;
  private reconciler: NodeJS.Timeout | undefined;
  private load: (() => Promise<readonly StoredCronTask[]>) | undefined;

  constructor(
    private readonly cluster: BullMqCluster,
    private readonly options: BullMqTriggerOptions = {},
  ) {
    this.timeZone = options.timeZone ?? serverTimeZone();
  }

  async start(load: () => Promise<readonly StoredCronTask[]>, fire: FireHandler): Promise<void> {
    this.load = load;
    // BullMQ puts ":" between prefix and queue name.
    const prefix = this.cluster.prefix.replace(/:+$/, '') || 'agent-service';
    // croner computes the fire times, as in one instance and the preview (BullMQ's own parser differs on some syntax).
    const settings = {
      repeatStrategy: (millis: number, repeat: { pattern?: string; tz?: string }) =>
        repeat.pattern === undefined ? undefined : this.times.next(repeat.pattern, repeat.tz, millis),
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
      concurrency: this.options.concurrency ?? 100,
      lockDuration: this.options.lockDurationMs ?? 5_000,
      stalledInterval: this.options.stalledIntervalMs ?? 1_000,
      // A scheduler's fire is never failed for stalling; a catch-up fire only after this many deaths.
      maxStalledCount: 5,
    });
    this.worker.on('error', (error) => this.warn('cron worker error', error));
    this.worker.on('failed', (job, error) => {
      if (job) this.warn('a cron fire failed', error, { task: job.data.taskId, job: job.id });
    });
    await this.reconcile();
    const every = this.options.reconcileIntervalMs ?? 60_000;
    this.reconciler = setInterval(() => {
      this.reconcile().catch((error: unknown) => this.warn('cron schedulers could not be reconciled', error));
    }, every);
    this.reconciler.unref();
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
    // Waits for the fires this worker is running; the scheduler aborts them past its grace time.
    await this.worker?.close();
    await this.queue?.close();
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
   * one after now: the fires in between are added as jobs of their own (ids as BullMQ would give
   * them, so a fire still queued or running is not added twice; one already recorded is skipped by
   * the scheduler).
   */
  private async catchUp(
    taskId: string,
    pattern: string,
    tz: string | undefined,
    scheduledAt: number,
  ): Promise<void> {
    const now = Date.now();
    const following = this.times.next(pattern, tz, scheduledAt);
    if (following === undefined || following > now) return;
    const queue = this.requireQueue();
    const until = (await queue.getJobScheduler(taskId))?.next;
    if (typeof until !== 'number') return;
    const oldest = now - (this.options.catchUpWindowMs ?? 60_000);
    const jobs: Array<{ name: string; data: FireData; opts: JobsOptions }> = [];
    for (
      let at: number | undefined = following;
      at !== undefined && at < until;
      at = this.times.next(pattern, tz, at)
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
    this.options.logger?.info({ task: taskId, fires: jobs.length }, 'cron fires caught up');
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
          const stale =
            same &&
            typeof current.next === 'number' &&
            current.next < now - 30_000 &&
            !(await queue.getJob(fireJobId(task.id, current.next)));
          if (!same || stale) changes.push(() => this.upsert(task));
        }
        for (const orphan of schedulers.keys()) changes.push(() => queue.removeJobScheduler(orphan));
        for (let start = 0; start < changes.length; start += 100)
          await Promise.all(changes.slice(start, start + 100).map((change) => change()));
        await this.cluster.redis.set(
          marker,
          this.cluster.instanceId,
          'PX',
          Math.max(Math.floor((this.options.reconcileIntervalMs ?? 60_000) / 2), 1_000),
        );
        if (changes.length > 0)
          this.options.logger?.info({ changes: changes.length }, 'cron schedulers reconciled');
      },
      { waitMs: 120_000 },
    );
  }

  private warn(message: string, error: unknown, extra: object = {}): void {
    this.options.logger?.warn({ ...extra, err: errorMessage(error) }, message);
  }
}
