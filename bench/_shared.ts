// Helpers shared by the HTTP benchmarks: start `agent-service serve` (and helper servers) as child
// processes, sample their memory, drive autocannon, and make sure no child outlives the benchmark.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import { closeSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error autocannon ships no type declarations; the shape used here is declared below.
import autocannonUntyped from 'autocannon';

export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
}
export const autocannon = autocannonUntyped as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>;

/** The program users run; BENCH_SERVICE_ENTRY may name another entry, e.g. a compiled dist/main.js. */
const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');

/** Every child still running and every temporary folder; cleaned up however the benchmark ends. */
const children = new Set<ChildProcess>();
const folders = new Set<string>();

function killAll(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Which code was measured: the commit and a digest of src/ as it is on disk, since figures taken
 * from uncommitted work cannot be told apart by the commit alone.
 */
export function codeVersion(): string {
  const root = join(import.meta.dirname, '..');
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const hash = createHash('sha256');
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    const path = join(root, 'src', file);
    try {
      hash.update(file).update(readFileSync(path));
    } catch {
      // a folder
    }
  }
  return `${commit}+src:${hash.digest('hex').slice(0, 10)}`;
}

export function progress(line: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

export const round = (value: number, digits = 0): number => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  /** The first capture group of the ready pattern, e.g. the URL the child listens on. */
  readonly url: string;
  /** Everything the child wrote on stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns a child and waits until its stderr or stdout matches `ready` (whose group 1 is the URL). */
export async function spawnChild(
  args: string[],
  options: { cwd?: string; ready: RegExp; stdout?: number | 'pipe'; timeoutMs?: number },
): Promise<Child> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? process.cwd(),
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let errText = '';
  let outText = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`child did not start in time: ${errText}`)),
      options.timeoutMs ?? 30_000,
    );
    const check = (): void => {
      const match = options.ready.exec(errText) ?? options.ready.exec(outText);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      errText += chunk.toString();
      check();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      outText += chunk.toString();
      check();
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code ?? signal}) before it was ready: ${errText}${outText}`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping)
      progress(
        `child ${args.at(-1) ?? ''} (pid ${child.pid}) exited unexpectedly: ${code ?? signal}\n${errText}`,
      );
  });
  return {
    process: child,
    pid: child.pid ?? 0,
    url,
    stderr: () => errText,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Service extends Child {
  /** Lines of the service's log (its stdout, kept in a file) at level error or above. */
  errorLogLines(): string[];
}

/** The node flags of `npm start` (between `node` and the program), so the service runs as users run it. */
function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/u);
  return words.slice(
    1,
    words.findIndex((word) => word.endsWith('agent-service.mjs')),
  );
}

/** BENCH_ROUND_TRIPS=1: services count their PostgreSQL queries and Redis commands (_round-trips.mjs). */
export const COUNT_ROUND_TRIPS = process.env['BENCH_ROUND_TRIPS'] === '1';

/**
 * Node flags for the service: those of `npm start`, then BENCH_SERVICE_NODE_ARGS ("--cpu-prof ..."),
 * then the round-trip counter when asked for.
 */
export const SERVICE_NODE_ARGS = [
  ...startFlags(),
  ...(process.env['BENCH_SERVICE_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
  ...(COUNT_ROUND_TRIPS ? ['--import', join(import.meta.dirname, '_round-trips.mjs')] : []),
];

export interface RoundTrips {
  pg: Record<string, number>;
  redis: Record<string, number>;
}

/**
 * With COUNT_ROUND_TRIPS, the queries and commands `pids` sent since the last call, summed (each
 * counter starts again from zero); undefined otherwise.
 */
export async function roundTrips(pids: number[]): Promise<RoundTrips | undefined> {
  if (!COUNT_ROUND_TRIPS) return undefined;
  const sum: RoundTrips = { pg: {}, redis: {} };
  for (const pid of pids) {
    const path = join(tmpdir(), `agent-service-round-trips-${pid}.json`);
    rmSync(path, { force: true });
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      continue; // gone (a benchmark killed it)
    }
    let text: string | undefined;
    for (let waited = 0; text === undefined && waited < 5_000; waited += 20) {
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        await sleep(20);
      }
    }
    rmSync(path, { force: true });
    const counts = JSON.parse(text ?? '{"pg":{},"redis":{}}') as RoundTrips;
    for (const kind of ['pg', 'redis'] as const)
      for (const [key, count] of Object.entries(counts[kind])) sum[kind][key] = (sum[kind][key] ?? 0) + count;
  }
  return sum;
}

/** Round trips per unit of work ({pgPerX, redisPerX}), and the breakdown on stderr. */
export function perUnit(
  counts: RoundTrips | undefined,
  units: number,
  unit: string,
  label: string,
): Record<string, number> {
  if (!counts) return {};
  const total = (table: Record<string, number>): number =>
    Object.values(table).reduce((sum, count) => sum + count, 0);
  const lines = (table: Record<string, number>): string =>
    Object.entries(table)
      .sort((x, y) => y[1] - x[1])
      .map(([key, count]) => `  ${round(count / Math.max(units, 1), 2)} x ${key}`)
      .join('\n');
  progress(
    `${label}: per ${unit}, PostgreSQL:\n${lines(counts.pg)}\nper ${unit}, Redis:\n${lines(counts.redis)}`,
  );
  return {
    [`pgQueriesPer${unit}`]: round(total(counts.pg) / Math.max(units, 1), 2),
    [`redisCommandsPer${unit}`]: round(total(counts.redis) / Math.max(units, 1), 2),
  };
}

/**
 * Starts `agent-service serve --port 0` as a user would, in a fresh temporary folder with `config`
 * written as its config.yaml (JSON is YAML). Its log (stdout) goes to a file, as under a supervisor.
 * `entry` runs another checkout's bin/agent-service.mjs (a "before" beside the code under test).
 */
export async function startService(
  config: Record<string, unknown>,
  options: { entry?: string } = {},
): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-service-'));
  folders.add(dir);
  const configPath = join(dir, 'config.yaml');
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  const logPath = join(dir, 'service.log');
  const logFd = openSync(logPath, 'w');
  let child: Child;
  try {
    child = await spawnChild(
      [...SERVICE_NODE_ARGS, options.entry ?? BIN, 'serve', '--port', '0', '--config', configPath],
      {
        cwd: dir,
        ready: /listening on (http:\/\/\S+)/,
        stdout: logFd,
        // A start takes under a second, but far longer on a machine busy with other work.
        timeoutMs: 120_000,
      },
    );
  } catch (error) {
    closeSync(logFd);
    await rm(dir, { recursive: true, force: true });
    folders.delete(dir);
    throw error;
  }
  // The child holds its own copy of the descriptor.
  closeSync(logFd);
  return {
    ...child,
    errorLogLines() {
      return readFileSync(logPath, 'utf8')
        .split('\n')
        .filter((line) => /"level":(5|6)\d/.test(line));
    },
    async stop() {
      await child.stop();
      // Process warnings (listener leaks, deprecations) and crashes show up on stderr.
      const notes = child
        .stderr()
        .split('\n')
        .filter((line) => /warning|error/i.test(line) && !/WARNING: user "admin"/.test(line));
      if (notes.length > 0) progress(`service stderr:\n${notes.join('\n')}`);
      await rm(dir, { recursive: true, force: true });
      folders.delete(dir);
    },
  };
}

/** Runs a script of bench/ (a file starting with "_") in a child and waits for its `listening on` line. */
export function startHelper(file: string, args: string[] = []): Promise<Child> {
  return spawnChild(['--import', 'tsx', join(import.meta.dirname, file), ...args], {
    ready: /listening on (http:\/\/\S+)/,
  });
}

/** Samples a process's resident memory every `everyMs` and keeps the largest value. */
export function sampleRss(pid: number, everyMs = 100): { peakMb(): number; stop(): number } {
  let peakKb = 0;
  const sample = (): void => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      if (kb > peakKb) peakKb = kb;
    } catch {
      // the process has exited
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    peakMb: () => round(peakKb / 1024, 1),
    stop() {
      clearInterval(timer);
      sample();
      return round(peakKb / 1024, 1);
    },
  };
}

interface CpuSnapshot {
  at: number;
  busyTicks: number;
  oursTicks: number;
}

/** CPU ticks of the whole machine and of this process with all its descendants (from /proc). */
function cpuSnapshot(): CpuSnapshot {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const busyTicks = fields
    .slice(0, 8)
    .reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0);
  const processes = new Map<number, { parent: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      processes.set(Number(name), { parent: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) });
    } catch {
      // exited meanwhile
    }
  }
  const isOurs = (pid: number): boolean => {
    for (let current = pid, hops = 0; current > 1 && hops < 50; hops += 1) {
      if (current === process.pid) return true;
      current = processes.get(current)?.parent ?? 0;
    }
    return false;
  };
  let oursTicks = 0;
  for (const [pid, entry] of processes) if (isOurs(pid)) oursTicks += entry.ticks;
  return { at: performance.now(), busyTicks, oursTicks };
}

/**
 * Starts watching the machine; `stop()` gives the CPU other programs used meanwhile, in % of one
 * core. The load generator shares the machine, so other work on it skews every figure.
 */
export function watchOtherCpu(): { stop(): number } {
  const before = cpuSnapshot();
  return {
    stop() {
      const after = cpuSnapshot();
      const seconds = (after.at - before.at) / 1000;
      const ticksPerSecond = 100; // USER_HZ on Linux
      const other = after.busyTicks - before.busyTicks - (after.oursTicks - before.oursTicks);
      return round(Math.max(0, (100 * other) / ticksPerSecond / Math.max(seconds, 0.001)));
    },
  };
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024, 1);
}

/** POSTs JSON and returns the parsed answer; throws with the body on a non-2xx status. */
export async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** One autocannon run of POST `url` with a JSON body; `durationS` seconds at `connections`. */
export async function loadPost(
  url: string,
  body: unknown,
  connections: number,
  durationS: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections,
    duration: durationS,
    timeout: 10,
  });
  return {
    // Completed requests over the measured time; autocannon's average excludes partial seconds.
    rps: round(result.requests.total / (result.duration || durationS)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}

/** CPU time (user + system, all threads) a process has used so far, in ms; 0 once it has exited. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
  } catch {
    return 0;
  }
}

/**
 * Warm-up then measurement; the RSS of `pid` is sampled during both, and its CPU time per request
 * is taken over the measurement. On a machine shared with other work, CPU per request is the
 * steadier figure: throughput falls with whatever else runs, the CPU a request costs much less.
 */
export async function warmAndLoad(
  url: string,
  body: unknown,
  options: { connections: number; warmS: number; durationS: number; pid?: number },
): Promise<LoadResult & { peakRssMb?: number; cpuMsPerRequest?: number; otherCpuPct: number }> {
  const rss = options.pid ? sampleRss(options.pid) : undefined;
  try {
    if (options.warmS > 0) await loadPost(url, body, options.connections, options.warmS);
    const other = watchOtherCpu();
    const cpuBefore = options.pid ? processCpuMs(options.pid) : 0;
    const load = await loadPost(url, body, options.connections, options.durationS);
    const result = {
      ...load,
      ...(options.pid
        ? { cpuMsPerRequest: round((processCpuMs(options.pid) - cpuBefore) / Math.max(1, load.requests), 3) }
        : {}),
      otherCpuPct: other.stop(),
    };
    if (result.otherCpuPct > 20)
      progress(`other programs used ${result.otherCpuPct}% of a core meanwhile: figures are skewed`);
    return rss ? { ...result, peakRssMb: rss.stop() } : result;
  } finally {
    rss?.stop();
  }
}

/** The agent `bench` of the chat benchmarks: one ai/agent node on the default provider, no tools, no prompt. */
export const BENCH_AGENT = {
  ruleChain: { id: 'bench', name: 'Bench agent' },
  metadata: {
    nodes: [
      {
        id: 'agent',
        type: 'ai/agent',
        name: 'Agent',
        configuration: { url: '', key: '', model: '', systemPrompt: '', maxStep: 5, params: {}, tools: [] },
      },
      { id: 'reply', type: 'end', name: 'Reply' },
    ],
    connections: [{ fromId: 'agent', toId: 'reply', type: 'Success' }],
  },
};

function postOnce(agent: Agent, url: URL, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      },
    );
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    outgoing.once('error', reject);
    outgoing.end(payload);
  });
}

/**
 * One client sending POSTs back to back over one kept-alive connection for `durationS` seconds,
 * after one second of warm-up; latencies at microsecond resolution (autocannon's histogram has
 * whole milliseconds, too coarse for a sub-millisecond direct call).
 */
export async function singleClientLatency(
  target: string,
  body: unknown,
  durationS: number,
): Promise<{ p50Ms: number; p99Ms: number; meanMs: number; requests: number; failures: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(target);
  const payload = JSON.stringify(body);
  const latencies: number[] = [];
  let failures = 0;
  try {
    const warmUntil = performance.now() + 1000;
    while (performance.now() < warmUntil) await postOnce(agent, url, payload).catch(() => 0);
    const deadline = performance.now() + durationS * 1000;
    while (performance.now() < deadline) {
      const started = performance.now();
      const status = await postOnce(agent, url, payload).catch(() => 0);
      latencies.push(performance.now() - started);
      if (status < 200 || status >= 300) failures += 1;
    }
  } finally {
    agent.destroy();
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0, 3);
  return {
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    meanMs: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length), 3),
    requests: latencies.length,
    failures,
  };
}

/** Removes every Redis key under `prefix` (a benchmark deployment's, BullMQ's among them). */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
