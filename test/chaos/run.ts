// `npm run chaos`: the full chaos run of issue 26 (test/chaos/chaos-run.ts), printing one JSON line
// of figures. CHAOS_TURNS, CHAOS_CONCURRENCY, CHAOS_FAULT_RATE, CHAOS_DB_OUTAGE_MS change its size.
import { runChaos } from './chaos-run.ts';

const number = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const figures = await runChaos({
  turns: number('CHAOS_TURNS', 1_000),
  concurrency: number('CHAOS_CONCURRENCY', 60),
  faultRate: number('CHAOS_FAULT_RATE', 0.2),
  databaseOutageMs: number('CHAOS_DB_OUTAGE_MS', 10_000),
  turnTimeoutMs: number('CHAOS_TURN_TIMEOUT_MS', 15_000),
});
process.stdout.write(`${JSON.stringify(figures)}\n`);
const failed =
  figures.lost > 0 ||
  figures.duplicates > 0 ||
  figures.stuck > 0 ||
  figures.maxPastTimeoutMs > 2_000 ||
  figures.afterKillMs > 10_000;
process.exit(failed ? 1 : 0);
