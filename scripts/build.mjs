#!/usr/bin/env node
// Compiles src/ to dist/ with esbuild: one bundle per entry. Transpiling only takes a fraction of a
// second; `npm run typecheck` is what checks the types. Running from dist/ saves the memory and
// start-up time of compiling TypeScript at run time.
//
// The pure-JavaScript packages every start loads are bundled in (BUNDLED); every other package stays
// in node_modules and loads from there on first use. Node 20 resolves, reads and links each file of
// an ES module package separately (kysely alone is 248 files): that resolving was a quarter of the
// start-up CPU, and each file's source text stays in memory (README, Benchmarks).
// Then builds the web UI (web/ -> web/dist/) with Vite; `node scripts/build.mjs server` or `ui`
// builds only one of the two.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const only = process.argv[2];

const entryPoints = { main: 'src/main.ts' };
// Worker entries must sit next to main.js, where the code that starts them looks for them.
if (existsSync('src/engine/sandbox/script-worker.ts'))
  entryPoints['script-worker'] = 'src/engine/sandbox/script-worker.ts';
if (existsSync('src/model-providers/model-worker.ts'))
  entryPoints['model-worker'] = 'src/model-providers/model-worker.ts';

/**
 * Bundled into dist/: loaded by every start, pure JavaScript, no files read beside their own code
 * (no native addon, worker file or WebAssembly). Their own dependencies come along, except those
 * in package.json's dependencies, which stay external. Packages that load on first use (channel
 * SDKs, drivers, OpenTelemetry's SDK, the openai SDK, QuickJS) stay in node_modules. pino is
 * bundled because the server uses no pino transport (those run files of pino's own in a worker).
 */
const BUNDLED = new Set([
  '@fastify/multipart',
  '@fastify/swagger',
  '@opentelemetry/api',
  'commander',
  'croner',
  'fastify',
  'fastify-type-provider-zod',
  'fflate',
  'jose',
  'kysely',
  'pino',
  'prom-client',
  'ws',
  'yaml',
  'zod',
]);
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.devDependencies ?? {}),
  ...Object.keys(manifest.optionalDependencies ?? {}),
  // Optional native speed-ups ws asks for inside a try.
  'bufferutil',
  'utf-8-validate',
]
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

if (only !== 'ui') await buildServer();
if (only !== 'server') await buildUi();

async function buildServer() {
  await build({
    entryPoints,
    outdir: 'dist',
    bundle: true,
    // Dynamic imports of our own modules become chunks loaded on first use (a platform's SDK, say).
    splitting: true,
    external,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: true,
    logLevel: 'warning',
    // Bundled CommonJS packages call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  });
  for (const name of readdirSync('dist')) if (name.endsWith('.js')) keepOneByte(`dist/${name}`);
}

/**
 * V8 keeps each module's source text in memory for as long as the process runs, one byte a character
 * when every character fits in Latin-1 and two bytes for the whole text as soon as one does not. esbuild
 * escapes strings but leaves comments and regular expressions as written: one `…` in a comment made the
 * 3 MB server chunk take 6 MB. A \uXXXX escape means the same in a comment, a string, a regular
 * expression and an identifier (a surrogate pair stays a pair), so they are escaped here.
 */
function keepOneByte(path) {
  const text = readFileSync(path, 'utf8');
  // eslint-disable-next-line no-control-regex -- the range is the point
  const wide = /[^\u0000-\u00ff]/g;
  if (!wide.test(text)) return;
  writeFileSync(
    path,
    text.replace(wide, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
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
