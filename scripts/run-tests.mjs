#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (Node 20 has no glob support in --test).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureChromium } from './ensure-chromium.mjs';

function find(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The browser tests (test/ui/) drive Debian's chromium; install it first if it is missing.
if (files.some((file) => file.startsWith(join('test', 'ui'))) && !ensureChromium()) process.exit(1);
// The Postgres and Redis tests (store tests on both databases, clustered mode) use the machine's
// services: start them if they are installed but stopped.
if (files.some((file) => /(storage|cluster)/.test(file)))
  spawnSync('bash', [join('scripts', 'ensure-services.sh')], { stdio: 'inherit' });
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
