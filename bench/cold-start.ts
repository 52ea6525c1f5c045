// Cold start to a ready /health, and idle memory, of `agent-service serve` as a user runs it, beside
// the floor: a bare fastify server with one route, started the same way in the same run.
// Prints one JSON line: {"bench":"cold-start", ...}. BENCH_SERVICE_ENTRY names another entry
// (another checkout's bin/agent-service.mjs, say); BENCH_BASELINE_ENTRY names a second one started in
// the same interleaved rounds (baseline* fields), for a before/after comparison on a busy machine.
// Every process starts with the Node flags of `npm start` (package.json), as a user runs the server.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeVersion, watchOtherCpu } from './_shared.ts';

const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');
const BASELINE = process.env['BENCH_BASELINE_ENTRY'];
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);

/** The Node flags `npm start` passes (`node --max-semi-space-size=8 bin/... serve`). */
function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const flags: string[] = [];
  for (const word of (manifest.scripts?.['start'] ?? '').split(/\s+/).slice(1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
const FLAGS = startFlags();

/** The floor: fastify, one route, listening; what any fastify server pays before its own code. */
const BARE_FASTIFY = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/health', async () => 'OK');
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write('listening on ' + address + '\\n');
process.once('SIGTERM', () => process.exit(0));
`;

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** CPU time (user + system) the process has used so far, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
}

async function once(
  args: (dir: string) => string[],
): Promise<{ readyMs: number; cpuMs: number; idleRssMb: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [...FLAGS, ...args(dir)], {
    cwd: join(import.meta.dirname, '..'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`server exited: ${output}`)));
  });
  for (;;) {
    const response = await fetch(`${url}/health`).catch(() => undefined);
    if (response?.ok) break;
  }
  const readyMs = performance.now() - started;
  const readyCpuMs = await cpuMs(child.pid ?? 0);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleRssMb = await rssMb(child.pid ?? 0);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
  return { readyMs, cpuMs: readyCpuMs, idleRssMb };
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const serviceAt = (entry: string) => (dir: string) => [
  entry,
  'serve',
  '--port',
  '0',
  '--config',
  join(dir, 'config.yaml'),
];
const bare = () => ['--input-type=module', '--eval', BARE_FASTIFY];
const results: Array<Awaited<ReturnType<typeof once>>> = [];
const floor: Array<Awaited<ReturnType<typeof once>>> = [];
const before: Array<Awaited<ReturnType<typeof once>>> = [];
const other = watchOtherCpu();
// Interleaved, so a busy moment of the machine hits all alike.
for (let i = 0; i < RUNS; i++) {
  results.push(await once(serviceAt(BIN)));
  if (BASELINE) before.push(await once(serviceAt(BASELINE)));
  floor.push(await once(bare));
}
const baseline = BASELINE
  ? {
      baselineEntry: BASELINE,
      baselineReadyMsMedian: Math.round(median(before.map((r) => r.readyMs))),
      baselineReadyCpuMsMedian: median(before.map((r) => r.cpuMs)),
      baselineIdleRssMbMedian: median(before.map((r) => r.idleRssMb)),
    }
  : {};
const readyMsMedian = Math.round(median(results.map((r) => r.readyMs)));
const bareReadyMsMedian = Math.round(median(floor.map((r) => r.readyMs)));
console.log(
  JSON.stringify({
    bench: 'cold-start',
    code: codeVersion(),
    entry: BIN,
    nodeFlags: FLAGS,
    runs: RUNS,
    readyMsMedian,
    readyMsMax: Math.round(Math.max(...results.map((r) => r.readyMs))),
    // CPU the server used up to its first answered /health (10 ms resolution).
    readyCpuMsMedian: median(results.map((r) => r.cpuMs)),
    idleRssMbMedian: median(results.map((r) => r.idleRssMb)),
    bareFastifyReadyMsMedian: bareReadyMsMedian,
    bareFastifyReadyCpuMsMedian: median(floor.map((r) => r.cpuMs)),
    bareFastifyIdleRssMbMedian: median(floor.map((r) => r.idleRssMb)),
    readyVsBareFastify: Math.round((100 * readyMsMedian) / bareReadyMsMedian) / 100,
    ...baseline,
    otherCpuPct: other.stop(),
    goals: { readyMs: 400, idleRssMb: 64 },
  }),
);
