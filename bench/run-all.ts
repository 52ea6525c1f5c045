// Runs every benchmark in bench/ one after another; each prints one JSON line of figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
/** Benchmarks that take minutes: run only when named (`npm run bench -- cron-cluster`) or with BENCH_SLOW=1. */
const SLOW = new Set(['cron-cluster.ts']);
/** Run only when named (`npm run soak`, `npm run bench -- soak`): an hour by default. */
const NAMED_ONLY = new Set(['soak.ts']);
const files = readdirSync(import.meta.dirname)
  .filter((name) => name.endsWith('.ts') && name !== 'run-all.ts' && !name.startsWith('_'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .filter((name) => !SLOW.has(name) || only.length > 0 || process.env['BENCH_SLOW'] === '1')
  .filter((name) => !NAMED_ONLY.has(name) || only.length > 0)
  .sort();
let failed = false;
for (const file of files) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
