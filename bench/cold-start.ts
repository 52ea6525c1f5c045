// Cold start to a ready /health, and idle memory, of `agent-service serve` as a user runs it.
// Prints one JSON line: {"bench":"cold-start", ...}.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'agent-service.mjs');
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

async function once(): Promise<{ readyMs: number; idleRssMb: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--config', join(dir, 'config.yaml')], {
    cwd: dir,
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
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleRssMb = await rssMb(child.pid ?? 0);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
  return { readyMs, idleRssMb };
}

const results = [];
for (let i = 0; i < RUNS; i++) results.push(await once());
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  JSON.stringify({
    bench: 'cold-start',
    runs: RUNS,
    readyMsMedian: Math.round(median(results.map((r) => r.readyMs))),
    readyMsMax: Math.round(Math.max(...results.map((r) => r.readyMs))),
    idleRssMbMedian: median(results.map((r) => r.idleRssMb)),
  }),
);
