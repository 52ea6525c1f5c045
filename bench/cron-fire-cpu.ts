// CPU per clustered cron fire, quickly (the full picture is bench/cron-cluster.ts, 5-8 minutes a
// mode): BENCH_CRON_INSTANCES (1) clustered `agent-service serve` instances on PostgreSQL and Redis,
// BENCH_CRON_TASKS (50) tasks firing every second ("* * * * * *"), measured over BENCH_DURATION_S
// (20) after a warm-up of 5 s. CPU is each instance's user + system time from /proc/<pid>/stat per
// fire recorded in the measured span. With BENCH_ROUND_TRIPS=1 also the PostgreSQL queries and Redis
// commands per fire; with BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=..." a profile per
// instance. BENCH_SERVICE_ENTRY runs another checkout's bin/agent-service.mjs (a "before").
// Prints one JSON line: {"bench":"cron-fire-cpu", ...}.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/storage/database.ts';
import { createTestDatabase, type TestDatabase } from '../test/fakes/test-database.ts';
import {
  codeVersion,
  COUNT_ROUND_TRIPS,
  perUnit,
  postJson,
  round,
  roundTrips,
  SERVICE_NODE_ARGS,
  sleep,
  spawnChild,
  type Child,
  dropRedisKeys,
} from './_shared.ts';

const INSTANCES = Number(process.env['BENCH_CRON_INSTANCES'] ?? 1);
const TASKS = Number(process.env['BENCH_CRON_TASKS'] ?? 50);
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 20);
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
/** "single": one instance on the embedded database (croner), the same tasks, for the cluster's floor. */
const SINGLE = process.env['BENCH_CRON_MODE'] === 'single';
const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');

/** User and system CPU ticks (10 ms) of one process so far. */
function cpuTicks(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(rest[11]), system: Number(rest[12]) };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** CPU ticks of each thread of a process, summed by thread name (main, V8 GC helpers, libuv, workers). */
function threadTicks(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name =
        task === String(pid)
          ? 'main'
          : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}${process.env['BENCH_BY_TID'] ? `:${task}` : ''}`;
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + Number(rest[11]) + Number(rest[12]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-cron-cpu-'));
const prefix = `bench-cron-cpu-${randomBytes(4).toString('hex')}:`;
let database: TestDatabase | undefined;
const instances: Child[] = [];
try {
  database = SINGLE ? undefined : await createTestDatabase('postgres', process.env);
  const config =
    `server:\n  host: 127.0.0.1\n  log_level: warn\n  shutdown_timeout_ms: 2000\n` +
    `data:\n  root_dir: ${JSON.stringify(join(dir, 'data'))}\n  database_url: ${JSON.stringify(database?.databaseUrl ?? '')}\n` +
    (SINGLE ? '' : `cluster:\n  redis_url: ${REDIS_URL}\n  key_prefix: "${prefix}"\n`);
  await writeFile(join(dir, 'config.yaml'), config);
  for (let index = 0; index < INSTANCES; index++) {
    const log = openSync(join(dir, `${index}.log`), 'w');
    instances.push(
      await spawnChild(
        [...SERVICE_NODE_ARGS, BIN, 'serve', '--config', join(dir, 'config.yaml'), '--port', '0'],
        { cwd: dir, ready: /listening on (http:\/\/\S+)/, stdout: log, timeoutMs: 120_000 },
      ),
    );
    closeSync(log);
  }
  // The embedded database is the instance's file: read beside it once the instance made it.
  const db = database ? await database.open() : await openDatabase(join(dir, 'data', 'agent-service.db'));
  for (let index = 0; index < TASKS; index++)
    await postJson(`${instances[index % INSTANCES]?.url}/api/v1/cron`, {
      id: `fire-${index}`,
      name: `Fire ${index}`,
      schedule: '* * * * * *',
      message: 'tick',
      target: 'main',
    });
  const recorded = async (): Promise<number> =>
    Number(
      (
        await db
          .selectFrom('cron_runs')
          .select((row) => row.fn.countAll().as('count'))
          .executeTakeFirst()
      )?.count ?? 0,
    );
  await sleep(5_000);
  const pids = instances.map((child) => child.pid);
  await roundTrips(pids);
  const before = pids.map(cpuTicks);
  const threadsBefore = pids.map(threadTicks);
  // cron_runs keeps the last 20 runs of each task past 15 minutes: in this span nothing is pruned.
  const runsBefore = await recorded();
  await sleep(DURATION_S * 1000);
  const after = pids.map(cpuTicks);
  const threads = new Map<string, number>();
  pids.forEach((pid, index) => {
    for (const [name, ticks] of threadTicks(pid))
      threads.set(name, (threads.get(name) ?? 0) + ticks - (threadsBefore[index]?.get(name) ?? 0));
  });
  const spent = (kind: 'user' | 'system'): number =>
    after.reduce((sum, ticks, index) => sum + ticks[kind] - (before[index]?.[kind] ?? 0), 0);
  const runsAfter = await recorded();
  const counted = await roundTrips(pids);
  const fires = runsAfter - runsBefore;
  await db.destroy();
  const result = {
    bench: 'cron-fire-cpu',
    code: codeVersion(),
    entry: BIN,
    mode: SINGLE ? 'single' : 'clustered',
    instances: INSTANCES,
    tasks: TASKS,
    durationS: DURATION_S,
    fires,
    expectedFires: TASKS * DURATION_S,
    instanceCpuMsPerFire: round(((spent('user') + spent('system')) * 10) / Math.max(fires, 1), 3),
    instanceCpuMsPerS: round(((spent('user') + spent('system')) * 10) / DURATION_S / INSTANCES, 1),
    // By thread: main (the event loop), V8's helpers (GC), libuv's pool, worker threads.
    threadCpuMsPerFire: Object.fromEntries(
      [...threads]
        .filter(([, ticks]) => ticks > 0)
        .map(([name, ticks]) => [name, round((ticks * 10) / Math.max(fires, 1), 3)]),
    ),
    systemCpuMsPerFire: round((spent('system') * 10) / Math.max(fires, 1), 3),
    ...(COUNT_ROUND_TRIPS ? perUnit(counted, fires, 'Fire', 'cron-fire-cpu') : {}),
  };
  console.log(JSON.stringify(result));
} finally {
  for (const child of instances) await child.stop();
  await database?.drop();
  await dropRedisKeys(REDIS_URL, prefix);
  await rm(dir, { recursive: true, force: true });
}
