#!/usr/bin/env node
// Compiles src/ to dist/ with esbuild: one bundle per entry (dependencies stay in node_modules).
// Transpiling only takes a fraction of a second; `npm run typecheck` is what checks the types.
// Running from dist/ saves the memory and start-up time of compiling TypeScript at run time.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const entryPoints = { main: 'src/main.ts' };
// Worker entries must sit next to main.js, where the code that starts them looks for them.
if (existsSync('src/engine/sandbox/script-worker.ts'))
  entryPoints['script-worker'] = 'src/engine/sandbox/script-worker.ts';
if (existsSync('src/model-providers/model-worker.ts'))
  entryPoints['model-worker'] = 'src/model-providers/model-worker.ts';

await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  // Dynamic imports of our own modules become chunks loaded on first use (a platform's SDK, say).
  splitting: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  logLevel: 'warning',
});
