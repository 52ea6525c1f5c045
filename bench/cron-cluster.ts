// Cron at scale: 10,000 tasks loaded, 1,000 of them firing every second for one minute (schedule
// "* M H * * *": every second of one minute of the clock), on three `agent-service serve`
// instances on PostgreSQL and Redis with one killed (SIGKILL) halfway; then the same load on one
// instance in single mode (the embedded libsql file, croner). A fire is a real turn of the default
// agent on the demo model (no network). Figures per mode: lateness (start - scheduled) p50/p99/max,
// fires missed, fires recorded twice, turns run twice, CPU. Takes about five minutes per mode.
// Prints one JSON line: {"bench":"cron-cluster", ...}.
//   BENCH_CRON_TASKS (10000) BENCH_CRON_FIRING (1000) BENCH_CRON_MODES ("clustered,single")
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../src/storage/database.ts';
import { createTestDatabase, type TestDatabase } from '../test/fakes/test-database.ts';
import {
  codeVersion,
  COUNT_ROUND_TRIPS,
  perUnit,
  progress,
  round,
  roundTrips,
  SERVICE_NODE_ARGS,
  sleep,
  spawnChild,
  watchOtherCpu,
  type Child,
  dropRedisKeys,
} from './_shared.ts';

const TASKS = Number(process.env['BENCH_CRON_TASKS'] ?? 10_000);
const FIRING = Number(process.env['BENCH_CRON_FIRING'] ?? 1_000);
const MODES = (process.env['BENCH_CRON_MODES'] ?? 'clustered,single').split(',').filter(Boolean);
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const WINDOW_S = 60;
/** After the window, how long the fires still queued may take to be recorded. */
const DRAIN_MAX_S = 240;
const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');

interface Figures {
  instances: number;
  killed: string | null;
  expectedFires: number;
  recordedFires: number;
  missed: number;
  /** The same fire recorded twice (the unique index makes this 0 unless it is broken). */
  duplicated: number;
  /** Turns run beyond one per fire (a fire whose instance died after its turn, before its record). */
  turnsRunTwice: number;
  latenessMs: { p50: number; p99: number; max: number };
  /** Of fires started in the second half, after the kill. */
  latenessAfterKillMs: { p50: number; p99: number; max: number };
  /** Seconds after the window until the last fire started. */
  drainS: number;
  /** CPU of the instances per recorded fire, and of the whole machine (200% = both cores busy). */
  instanceCpuMsPerFire: number;
  machineBusyPct: number;
  /** CPU of everything else on the machine (Redis, PostgreSQL and any other work), % of one core. */
  otherCpuPct: number;
  /** With BENCH_ROUND_TRIPS=1: PostgreSQL queries and Redis commands per recorded fire (instances a and b). */
  roundTrips?: Record<string, number>;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);

function summary(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((x, y) => x - y);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
}

function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

function machineBusyTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** The 9,000 (TASKS - FIRING) tasks that do not fire in the window, written before the instances start. */
async function seedIdleTasks(db: Db): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < TASKS - FIRING; start += 500) {
    const rows = [];
    for (let index = start; index < Math.min(start + 500, TASKS - FIRING); index++)
      rows.push({
        id: `idle-${index}`,
        name: `Idle ${index}`,
        // Midnight of January 1st: never in the window.
        schedule: '0 0 0 1 1 *',
        message: 'report',
        target: 'main',
        disabled: 0,
        created_at: now,
        updated_at: now,
        last_run_at: null,
        last_run_ended_at: null,
        last_run_status: null,
        last_run_error: null,
        last_run_reply: null,
        last_run_ms: null,
      });
    await db.insertInto('cron_tasks').values(rows).execute();
  }
}

async function measure(mode: string): Promise<Figures> {
  const clustered = mode === 'clustered';
  const dir = await mkdtemp(join(tmpdir(), 'bench-cron-'));
  const prefix = `bench-cron-${randomBytes(4).toString('hex')}:`;
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  const instances: Child[] = [];
  try {
    let databaseUrl = '';
    if (clustered) {
      database = await createTestDatabase('postgres', process.env);
      databaseUrl = database.databaseUrl;
      db = await database.open();
    } else {
      await mkdir(join(dir, 'data'), { recursive: true, mode: 0o700 });
      db = await openDatabase(join(dir, 'data', 'agent-service.db'));
    }
    await seedIdleTasks(db);
    const config =
      `server:\n  host: 127.0.0.1\n  log_level: warn\n  shutdown_timeout_ms: 2000\n` +
      `data:\n  root_dir: ${JSON.stringify(join(dir, 'data'))}\n  database_url: ${JSON.stringify(databaseUrl)}\n` +
      (clustered ? `cluster:\n  redis_url: ${REDIS_URL}\n  key_prefix: "${prefix}"\n` : '');
    await writeFile(join(dir, 'config.yaml'), config);
    const names = clustered ? ['a', 'b', 'c'] : ['single'];
    progress(`${mode}: starting ${names.length} instance(s) with ${TASKS - FIRING} tasks loaded`);
    for (const name of names) {
      // Each instance's log (warnings and errors at log_level warn) in a file, summed up at the end.
      const log = openSync(join(dir, `${name}.log`), 'w');
      instances.push(
        await spawnChild(
          [...SERVICE_NODE_ARGS, BIN, 'serve', '--config', join(dir, 'config.yaml'), '--port', '0'],
          {
            cwd: dir,
            ready: /listening on (http:\/\/\S+)/,
            stdout: log,
            timeoutMs: 120_000,
          },
        ),
      );
      closeSync(log);
    }
    const first = instances[0] as Child;

    // The window: the first whole minute starting at least 20 s after the firing tasks exist.
    const creating = Date.now();
    const windowStart = Math.ceil((creating + 20_000 + FIRING * 10) / 60_000) * 60_000;
    const at = new Date(windowStart);
    const schedule = `* ${at.getMinutes()} ${at.getHours()} * * *`;
    for (let start = 0; start < FIRING; start += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, FIRING - start) }, (_, offset) =>
          api(instances[(start + offset) % instances.length]?.url ?? first.url, 'POST', '/api/v1/cron', {
            id: `fire-${start + offset}`,
            name: `Fire ${start + offset}`,
            schedule,
            message: 'tick',
            target: 'main',
          }),
        ),
      );
    const tasks = (await api(first.url, 'GET', '/api/v1/cron')) as unknown[];
    if (tasks.length !== TASKS) throw new Error(`expected ${TASKS} tasks, the API lists ${tasks.length}`);
    progress(
      `${mode}: ${FIRING} firing tasks created in ${Date.now() - creating} ms; window at ${at.toISOString()}`,
    );

    // Runs of scheduled fires stay in the history for 15 minutes: read once the window has drained.
    const windowEnd = windowStart + WINDOW_S * 1000;
    const recordedInWindow = async (): Promise<number> =>
      Number(
        (
          await (db as Db)
            .selectFrom('cron_runs')
            .select((row) => row.fn.countAll().as('count'))
            .where('scheduled_at', '>=', windowStart)
            .where('scheduled_at', '<', windowEnd)
            .executeTakeFirst()
        )?.count ?? 0,
      );

    await sleep(windowStart - Date.now() - 1000);
    const other = watchOtherCpu();
    const machineBefore = machineBusyTicks();
    const cpuBefore = instances.map((child) => cpuTicks(child.pid));
    await roundTrips(instances.map((child) => child.pid));
    let killed: string | null = null;
    if (clustered) {
      await sleep(windowStart + (WINDOW_S / 2) * 1000 - Date.now());
      const victim = instances[2] as Child;
      victim.process.kill('SIGKILL');
      killed = `c (SIGKILL at +${WINDOW_S / 2} s)`;
      progress(`${mode}: killed instance c`);
    }
    await sleep(windowStart + WINDOW_S * 1000 - Date.now());
    const expectedFires = FIRING * WINDOW_S;
    // Drained: every fire recorded, or nothing new for 20 s (or DRAIN_MAX_S in all).
    const drainDeadline = Date.now() + DRAIN_MAX_S * 1000;
    let count = await recordedInWindow();
    let lastNewAt = Date.now();
    while (Date.now() < drainDeadline && count < expectedFires && Date.now() - lastNewAt < 20_000) {
      await sleep(1000);
      const now = await recordedInWindow();
      if (now > count) lastNewAt = Date.now();
      count = now;
    }
    const seen = new Map<string, { scheduled: number; started: number }>();
    let duplicated = 0;
    for (const row of await db
      .selectFrom('cron_runs')
      .select(['task_id', 'scheduled_at', 'started_at'])
      .where('scheduled_at', '>=', windowStart)
      .where('scheduled_at', '<', windowEnd)
      .execute()) {
      const key = `${row.task_id}@${row.scheduled_at}`;
      if (seen.has(key)) duplicated++;
      seen.set(key, { scheduled: Number(row.scheduled_at), started: Number(row.started_at) });
    }
    const cpuAfter = instances.map((child, index) =>
      child.process.exitCode === null && child.process.signalCode === null
        ? cpuTicks(child.pid)
        : (cpuBefore[index] ?? 0),
    );
    const machineAfter = machineBusyTicks();
    const live = instances.filter(
      (child) => child.process.exitCode === null && child.process.signalCode === null,
    );
    const counted = await roundTrips(live.map((child) => child.pid));
    const otherCpuPct = other.stop();
    const runs = [...seen.values()];
    const lastStarted = runs.reduce((latest, run) => Math.max(latest, run.started), windowStart);
    const turns = await sql<{ count: number | string }>`
      select count(*) as count from session_messages
      where session_key like ${'agent:main:channel:cron:%'} and message like ${'%"role":"user"%'}`.execute(
      db,
    );
    const turnsRun = Number(turns.rows[0]?.count ?? 0);
    const instanceTicks = cpuAfter.reduce((sum, ticks, index) => sum + ticks - (cpuBefore[index] ?? 0), 0);
    const warnings = names.flatMap((name) =>
      readFileSync(join(dir, `${name}.log`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const entry = JSON.parse(line) as { msg?: string; err?: unknown };
          return `${name}: ${String(entry.msg)} ${String(entry.err ?? '').slice(0, 160)}`;
        }),
    );
    const distinct = new Map<string, number>();
    for (const line of warnings) {
      // Grouped without job ids and times.
      const shape = line.replace(/repeat:[^ .]+/g, 'repeat:…').replace(/\d{4,}/g, 'N');
      distinct.set(shape, (distinct.get(shape) ?? 0) + 1);
    }
    if (distinct.size > 0)
      progress(
        `${mode}: instance log lines:\n${[...distinct].map(([line, n]) => `  ${n} x ${line}`).join('\n')}`,
      );
    const missedBySecond = new Map<number, number>();
    for (let task = 0; task < FIRING; task++)
      for (let second = 0; second < WINDOW_S; second++)
        if (!seen.has(`fire-${task}@${windowStart + second * 1000}`))
          missedBySecond.set(second, (missedBySecond.get(second) ?? 0) + 1);
    if (missedBySecond.size > 0)
      progress(
        `${mode}: missed fires by second of the window: ${JSON.stringify(Object.fromEntries(missedBySecond))}`,
      );
    const after = runs.filter((run) => run.scheduled >= windowStart + (WINDOW_S / 2) * 1000);
    return {
      instances: names.length,
      killed,
      expectedFires,
      recordedFires: runs.length,
      missed: expectedFires - runs.length,
      duplicated,
      turnsRunTwice: Math.max(0, turnsRun - runs.length),
      latenessMs: summary(runs.map((run) => run.started - run.scheduled)),
      latenessAfterKillMs: summary(after.map((run) => run.started - run.scheduled)),
      drainS: round(Math.max(0, lastStarted - windowEnd) / 1000, 1),
      instanceCpuMsPerFire: round((instanceTicks * 10) / Math.max(runs.length, 1), 2),
      machineBusyPct: round(
        (200 * (machineAfter.busy - machineBefore.busy)) /
          Math.max(machineAfter.total - machineBefore.total, 1),
      ),
      otherCpuPct,
      ...(COUNT_ROUND_TRIPS
        ? {
            roundTrips: perUnit(
              counted,
              // The killed instance's counts are lost: the live ones ran about their share of the
              // first half of the window and all of the second.
              runs.length * (killed ? (live.length / instances.length + 1) / 2 : 1),
              'Fire',
              `${mode}, live instances`,
            ),
          }
        : {}),
    };
  } finally {
    for (const child of instances) await child.stop();
    await db?.destroy();
    await database?.drop();
    if (clustered) await dropRedisKeys(REDIS_URL, prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

const results: Record<string, Figures> = {};
for (const mode of MODES) results[mode] = await measure(mode);
process.stdout.write(
  `${JSON.stringify({
    bench: 'cron-cluster',
    version: codeVersion(),
    tasks: TASKS,
    firingEverySecond: FIRING,
    windowS: WINDOW_S,
    goal: { latenessP99Ms: 100, missed: 0, duplicated: 0 },
    ...results,
  })}\n`,
);
