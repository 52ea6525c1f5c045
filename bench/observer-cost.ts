// The observer's CPU per turn (bench/_observer-turns.ts) in four settings: metrics only ("off"),
// every trace recorded ("full"), BENCH_SAMPLE_RATIO of them (default 0.1) and none (ratio 0).
// BENCH_BASELINE_SRC=/path/to/other/checkout measures that checkout's src/ too, in the same run:
// every measurement is a fresh child process and the rounds alternate the two codes, so the other
// work on the machine hits both. Figures are medians of BENCH_ROUNDS (default 3) rounds.
// Prints one JSON line: {"bench":"observer-cost", ...}.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { observerMicrosPerTurn, startCollector, type TelemetryFactory } from './_observer-turns.ts';

const MODES = {
  off: undefined,
  full: 1,
  sampled: Number(process.env['BENCH_SAMPLE_RATIO'] ?? 0.1),
  ratio0: 0,
};
type Mode = keyof typeof MODES;

const child = process.env['OBSERVER_COST_CHILD'];
if (child) {
  const [root, mode] = child.split('|') as [string, Mode];
  const url = pathToFileURL(resolve(root, 'src/observability/telemetry.ts')).href;
  const { Telemetry } = (await import(url)) as { Telemetry: TelemetryFactory };
  const collector = await startCollector();
  const ratio = MODES[mode];
  const result = await observerMicrosPerTurn(
    Telemetry,
    ratio === undefined ? '' : collector.url,
    ratio ?? 1,
    Number(process.env['BENCH_OBSERVER_ROUNDS'] ?? 100),
  );
  collector.close();
  console.log(JSON.stringify(result));
} else {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const baseline = process.env['BENCH_BASELINE_SRC'];
  const codes = { after: resolve(import.meta.dirname, '..'), ...(baseline ? { before: baseline } : {}) };
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      const order = Object.entries(codes);
      if (round % 2 === 1) order.reverse();
      for (const [name, root] of order) {
        const run = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename], {
          env: { ...process.env, OBSERVER_COST_CHILD: `${root}|${mode}` },
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(`${name} ${mode}: ${run.stderr}`);
        const line = run.stdout.trim().split('\n').at(-1) ?? '{}';
        (cpu[`${name}.${mode}`] ??= []).push((JSON.parse(line) as { cpu: number }).cpu);
        process.stderr.write(`observer-cost: round ${round + 1}/${rounds}, ${name} ${mode}: ${line}\n`);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const figures = Object.fromEntries(Object.entries(cpu).map(([key, values]) => [key, median(values)]));
  console.log(
    JSON.stringify({
      bench: 'observer-cost',
      unit: 'cpu µs per turn',
      rounds,
      sampleRatio: MODES.sampled,
      ...figures,
      all: cpu,
    }),
  );
}
