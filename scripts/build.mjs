#!/usr/bin/env node
// Compiles src/ to dist/ with esbuild: one bundle per entry (dependencies stay in node_modules).
// Transpiling only takes a fraction of a second; `npm run typecheck` is what checks the types.
// Running from dist/ saves the memory and start-up time of compiling TypeScript at run time.
// Then builds the web UI (web/ -> web/dist/) with Vite; `node scripts/build.mjs server` or `ui`
// builds only one of the two.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const only = process.argv[2];

const entryPoints = { main: 'src/main.ts' };
// Worker entries must sit next to main.js, where the code that starts them looks for them.
if (existsSync('src/engine/sandbox/script-worker.ts'))
  entryPoints['script-worker'] = 'src/engine/sandbox/script-worker.ts';
if (existsSync('src/model-providers/model-worker.ts'))
  entryPoints['model-worker'] = 'src/model-providers/model-worker.ts';

if (only !== 'ui') await buildServer();
if (only !== 'server') await buildUi();

async function buildServer() {
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
}

async function buildUi() {
  // Loaded here, so building the server alone never needs the UI toolchain. An install without
  // devDependencies has no Vite: the server then runs, and /ui/ says how to build the UI.
  const vite = await import('vite').catch(() => undefined);
  if (!vite) {
    console.warn('web UI not built: Vite is not installed (run `npm install` with devDependencies)');
    return;
  }
  await vite.build({ configFile: 'web/vite.config.mjs', logLevel: 'warn' });
}
