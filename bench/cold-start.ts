// Cold start to a ready /health, and idle memory, of `agent-service serve` as a user runs it, beside
// the floor: a bare fastify server with one route, started the same way in the same run.
// Prints one JSON line: {"bench":"cold-start", ...}. BENCH_SERVICE_ENTRY names another entry
// (another checkout's bin/agent-service.mjs, say, for a before/after comparison in one run).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeVersion, watchOtherCpu } from './_shared.ts';

const BIN = process.env['BENCH_SERVICE_ENTRY'] ?? join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);

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
  const child = spawn(process.execPath, args(dir), {
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
const service = (dir: string) => [BIN, 'serve', '--port', '0', '--config', join(dir, 'config.yaml')];
const bare = () => ['--input-type=module', '--eval', BARE_FASTIFY];
const results: Array<Awaited<ReturnType<typeof once>>> = [];
const floor: Array<Awaited<ReturnType<typeof once>>> = [];
const other = watchOtherCpu();
// Interleaved, so a busy moment of the machine hits both alike.
for (let i = 0; i < RUNS; i++) {
  results.push(await once(service));
  floor.push(await once(bare));
}
const readyMsMedian = Math.round(median(results.map((r) => r.readyMs)));
const bareReadyMsMedian = Math.round(median(floor.map((r) => r.readyMs)));
console.log(
  JSON.stringify({
    bench: 'cold-start',
    code: codeVersion(),
    entry: BIN,
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
    otherCpuPct: other.stop(),
    goals: { readyMs: 400, idleRssMb: 64 },
  }),
);
