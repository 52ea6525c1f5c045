// CPU per chat turn in clustered mode: three `agent-service serve` instances sharing one config file
// and data root, on PostgreSQL (a schema of its own in TEST_DATABASE_URL's database, dropped at the
// end) and Redis (a key prefix of its own, its keys removed at the end), with turns spread round
// robin over the three instances and over SESSIONS conversations, so a conversation moves from
// instance to instance turn by turn.
// Then the same load on one instance in single mode (the embedded libsql file). CPU is each
// instance's user + system time from /proc/<pid>/stat, summed, per completed turn. The machine has
// two cores: the figure is the cost of a turn, not a scaling claim.
// Prints one JSON line: {"bench":"chat-cluster", ...}.
//   BENCH_CONNECTIONS (21, a multiple of three) BENCH_DURATION_S (10) BENCH_REDIS_URL
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../test/fakes/test-database.ts';
import {
  autocannon,
  BENCH_AGENT,
  codeVersion,
  COUNT_ROUND_TRIPS,
  postJson,
  perUnit,
  progress,
  round,
  roundTrips,
  SERVICE_NODE_ARGS,
  sleep,
  spawnChild,
  startHelper,
  startService,
  watchOtherCpu,
  type Child,
  dropRedisKeys,
} from './_shared.ts';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 21);
const WARM_S = 2;
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
/** Conversations the turns are spread over, round robin: each grows by two messages a turn. */
const SESSIONS = 100;
const INSTANCES = ['a', 'b', 'c'];
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');
/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 10 ms. */
const MS_PER_TICK = 10;

interface Figures {
  turnsPerS: number;
  turns: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  cpuMsPerTurn: number;
  /** CPU of everything outside this benchmark (PostgreSQL and Redis included), % of one core. */
  otherCpuPct: number;
  /** With BENCH_ROUND_TRIPS=1: PostgreSQL queries and Redis commands per turn. */
  roundTrips: Record<string, number>;
}

/** User + system CPU ticks of one process so far. */
function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

/** Turns for `seconds` over `urls` (connections split evenly), each in the next of SESSIONS conversations. */
async function turns(urls: string[], pids: number[], seconds: number, prefix: string): Promise<Figures> {
  let next = 0;
  await roundTrips(pids);
  const other = watchOtherCpu();
  const before = pids.map(cpuTicks);
  const result = await autocannon({
    url: urls.map((url) => `${url}/api/v1/chat/completions`),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify({
            model: 'bench',
            sessionId: `${prefix}-${next++ % SESSIONS}`,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        }),
      },
    ],
  });
  const ticks = pids.reduce((sum, pid, index) => sum + cpuTicks(pid) - (before[index] ?? 0), 0);
  const total = result.requests.total;
  const counted = await roundTrips(pids);
  return {
    turnsPerS: round(total / (result.duration || seconds)),
    turns: total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMsPerTurn: round((ticks * MS_PER_TICK) / Math.max(1, total), 2),
    otherCpuPct: other.stop(),
    roundTrips: perUnit(counted, total, 'Turn', `${pids.length} instance(s), ${prefix}`),
  };
}

/** One turn on `url` until it answers 200: the agent created on another instance is live there. */
async function awaitAgent(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    if (response.ok) return;
    if (Date.now() > deadline)
      throw new Error(`${url}: the bench agent is not live: ${response.status} ${text}`);
    await sleep(100);
  }
}

/** Error-level lines of the instances' logs (pino JSON on stdout, kept in files). */
function errorLines(logPaths: string[]): string[] {
  return logPaths.flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => /"level":(5|6)\d/.test(line)),
  );
}

async function clustered(upstreamUrl: string): Promise<Figures & { errorLogLines: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-chat-cluster-'));
  const prefix = `bench-chat-${randomBytes(4).toString('hex')}:`;
  let database: TestDatabase | undefined;
  const instances: Child[] = [];
  try {
    database = await createTestDatabase('postgres', process.env);
    const configPath = join(dir, 'config.yaml');
    // JSON is YAML. The data root comes from --data, the same for every instance.
    const config = {
      data: { database_url: database.databaseUrl },
      cluster: { redis_url: REDIS_URL, key_prefix: prefix },
      models: {
        default_provider: 'fake',
        providers: { fake: { base_url: upstreamUrl, model: 'fake-model' } },
      },
    };
    await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const logPaths: string[] = [];
    for (const name of INSTANCES) {
      const logPath = join(dir, `${name}.log`);
      logPaths.push(logPath);
      const log = openSync(logPath, 'w');
      try {
        instances.push(
          await spawnChild(
            [
              ...SERVICE_NODE_ARGS,
              BIN,
              'serve',
              '--config',
              configPath,
              '--port',
              '0',
              '--data',
              join(dir, 'data'),
            ],
            { cwd: dir, ready: /listening on (http:\/\/\S+)/, stdout: log, timeoutMs: 60_000 },
          ),
        );
      } finally {
        closeSync(log);
      }
    }
    const urls = instances.map((instance) => instance.url);
    const pids = instances.map((instance) => instance.pid);
    await postJson(`${urls[0]}/api/v1/agents`, BENCH_AGENT);
    for (const url of urls) await awaitAgent(url);
    progress(
      `chat-cluster: ${INSTANCES.length} instances on PostgreSQL + Redis, ${CONNECTIONS} connections ` +
        `over ${SESSIONS} sessions, ${DURATION_S} s`,
    );
    await turns(urls, pids, WARM_S, 'warm');
    const figures = await turns(urls, pids, DURATION_S, 'measured');
    const errors = errorLines(logPaths);
    if (errors.length > 0) progress(`clustered: instances logged errors, first: ${errors[0]}`);
    return { ...figures, errorLogLines: errors.length };
  } finally {
    for (const instance of instances) await instance.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    await database?.drop();
    await dropRedisKeys(REDIS_URL, prefix);
  }
}

async function single(upstreamUrl: string): Promise<Figures & { errorLogLines: number }> {
  const service = await startService({
    data: { root_dir: './data', database_url: '' },
    models: { default_provider: 'fake', providers: { fake: { base_url: upstreamUrl, model: 'fake-model' } } },
  });
  try {
    await postJson(`${service.url}/api/v1/agents`, BENCH_AGENT);
    progress(`chat-cluster: one instance on libsql, ${CONNECTIONS} connections over ${SESSIONS} sessions`);
    await turns([service.url], [service.pid], WARM_S, 'warm');
    const figures = await turns([service.url], [service.pid], DURATION_S, 'measured');
    const errors = service.errorLogLines();
    if (errors.length > 0) progress(`single: service logged errors, first: ${errors[0]}`);
    return { ...figures, errorLogLines: errors.length };
  } finally {
    await service.stop();
  }
}

const upstream = await startHelper('_fake-upstream-process.ts');
try {
  const cluster = await clustered(upstream.url);
  const one = await single(upstream.url);
  console.log(
    JSON.stringify({
      bench: 'chat-cluster',
      code: codeVersion(),
      instances: INSTANCES.length,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      sessions: SESSIONS,
      clusterTurnsPerS: cluster.turnsPerS,
      clusterP50Ms: cluster.p50Ms,
      clusterP99Ms: cluster.p99Ms,
      // CPU of the three instances (user + system) per completed turn; PostgreSQL and Redis not included.
      clusterCpuMsPerTurn: cluster.cpuMsPerTurn,
      singleTurnsPerS: one.turnsPerS,
      singleP50Ms: one.p50Ms,
      singleP99Ms: one.p99Ms,
      singleCpuMsPerTurn: one.cpuMsPerTurn,
      clusterVsSingleCpu: round(cluster.cpuMsPerTurn / Math.max(0.01, one.cpuMsPerTurn), 2),
      errors: cluster.errors + one.errors,
      non2xx: cluster.non2xx + one.non2xx,
      serviceErrorLogLines: cluster.errorLogLines + one.errorLogLines,
      // CPU other programs took meanwhile (% of one core, worst run); in the clustered run this
      // includes PostgreSQL and Redis, so it is also their cost.
      clusterOtherCpuPct: cluster.otherCpuPct,
      singleOtherCpuPct: one.otherCpuPct,
      ...(COUNT_ROUND_TRIPS
        ? { clusterRoundTrips: cluster.roundTrips, singleRoundTrips: one.roundTrips }
        : {}),
    }),
  );
} finally {
  await upstream.stop();
}
