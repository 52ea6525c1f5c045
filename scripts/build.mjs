#!/usr/bin/env node
// Compiles src/ to dist/ with esbuild: the program as one CommonJS bundle that dist/main.js runs with a
// V8 code cache (scripts/main-loader.mjs), the worker entries as ES modules. Transpiling only takes a
// fraction of a second; `npm run typecheck` is what checks the types. Running from dist/ saves the
// memory and start-up time of compiling TypeScript at run time. A server start then writes the code
// cache the first real start reads (warmCodeCache).
//
// The pure-JavaScript packages every start loads are bundled in (BUNDLED); every other package stays
// in node_modules and loads from there on first use. Node 20 resolves, reads and links each file of
// an ES module package separately (kysely alone is 248 files): that resolving was a quarter of the
// start-up CPU, and each file's source text stays in memory (README, Benchmarks).
// Then builds the web UI (web/ -> web/dist/) with Vite; `node scripts/build.mjs server` or `ui`
// builds only one of the two.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout } from 'node:timers/promises';

const only = process.argv[2];

// Worker entries must sit next to main.js, where the code that starts them looks for them.
const workerEntryPoints = {};
if (existsSync('src/engine/sandbox/script-worker.ts'))
  workerEntryPoints['script-worker'] = 'src/engine/sandbox/script-worker.ts';
if (existsSync('src/model-providers/model-worker.ts'))
  workerEntryPoints['model-worker'] = 'src/model-providers/model-worker.ts';

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

if (only !== 'ui') {
  await buildServer();
  await warmCodeCache();
}
if (only !== 'server') await buildUi();

async function buildServer() {
  const common = {
    bundle: true,
    external,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  };
  const [program, workers] = await Promise.all([
    // The program: one CommonJS bundle that dist/main.js (scripts/main-loader.mjs) runs with a V8
    // code cache. Node 20 caches no compiled code for ES modules, and compiling the ES module
    // chunks was the largest item of a start. CommonJS has no code splitting: the modules our own
    // code imports with import() are in the bundle too, but esbuild wraps each in a function run on
    // first import, and V8 only pre-parses a function until it first runs, so they cost a start
    // little more than reading their text. import.meta becomes the object the loader passes, which
    // names dist/main.js, so paths relative to it hold as in an ES module build.
    build({
      ...common,
      entryPoints: { 'main.bundle': 'src/main.ts' },
      outdir: 'dist',
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      define: { 'import.meta': '__importMeta' },
      // The file is one function expression, the wrapper Node gives a CommonJS file plus what the
      // loader passes in (scripts/main-loader.mjs): the loader compiles the text as read, where
      // wrapping it there made V8 copy all of it into one flat string first.
      banner: {
        js: '(function (exports, require, module, __filename, __dirname, __importMeta, __importPackage) {',
      },
      footer: { js: '})' },
      metafile: true,
    }),
    // The worker entries stay ES modules, loaded by file by the code that starts them.
    build({
      ...common,
      entryPoints: workerEntryPoints,
      outdir: 'dist',
      // Dynamic imports of our own modules become chunks loaded on first use.
      splitting: true,
      format: 'esm',
      metafile: true,
      // Bundled CommonJS packages call require() for Node's own modules.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
      },
    }),
  ]);
  const written = new Set(
    [program, workers]
      .flatMap((result) => Object.keys(result.metafile.outputs))
      .map((path) => basename(path)),
  );
  written.add('main.js');
  // Files of earlier builds (chunks under other hashes, code caches of an earlier bundle) go.
  for (const name of readdirSync('dist'))
    if (!written.has(name) && /\.(js|cjs|map|v8-cache|tmp)$/.test(name)) rmSync(`dist/${name}`);
  routePackageImports('dist/main.bundle.cjs', program.metafile.outputs['dist/main.bundle.cjs']);
  for (const name of written) if (/\.c?js$/.test(name) && name !== 'main.js') keepOneByte(`dist/${name}`);
  // The loader goes last: bin/agent-service.mjs runs dist/ when dist/main.js is newer than src/.
  copyFileSync('scripts/main-loader.mjs', 'dist/main.js');
}

/**
 * Starts the server once, as `npm start` does, in a scratch folder, so the first real start finds the
 * code cache dist/main.js writes once a server is ready (scripts/main-loader.mjs): the loader names
 * the cache after Node's flags, so this start takes `npm start`'s. Stopped as soon as the cache is
 * there. A failure here only costs the first start that time, so it is said and the build goes on.
 */
async function warmCodeCache() {
  const words = (manifest.scripts?.start ?? '').split(/\s+/).slice(1);
  const flags = words.slice(
    0,
    Math.max(
      0,
      words.findIndex((word) => !word.startsWith('--')),
    ),
  );
  const scratch = mkdtempSync(join(tmpdir(), 'agent-service-build-'));
  const hasCache = () => readdirSync('dist').some((name) => name.endsWith('.v8-cache'));
  const child = spawn(
    process.execPath,
    [...flags, 'bin/agent-service.mjs', 'serve', '--port', '0', '--config', join(scratch, 'config.yaml')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let running = true;
  void exited.then(() => (running = false));
  const deadline = Date.now() + 60_000;
  while (running && !hasCache() && Date.now() < deadline) await setTimeout(50);
  if (running) child.kill('SIGTERM');
  await exited;
  rmSync(scratch, { recursive: true, force: true });
  if (!hasCache()) console.warn(`code cache not written (the first start writes it):\n${output}`);
}

/**
 * Turns the bundle's import() of packages into calls of the function dist/main.js passes in: Node 20
 * loses a vm.Script's dynamic-import callback when V8 reads the script from a code cache, so an
 * import() in it works on the start that writes the cache and fails on every start after. esbuild
 * prints each such import() as import("name"), with the names in its metafile; any other import() in
 * the bundle's code stops the build. Those left in comments, in the worker bootstrap's template (run
 * as a worker's own code) and in JSDoc types are told apart by what follows the parenthesis: esbuild
 * prints string literals with double quotes, so a single quote, `${` or `)` is not code of the bundle.
 */
function routePackageImports(path, output) {
  let text = readFileSync(path, 'utf8');
  for (const { path: name, kind, external } of output.imports)
    if (kind === 'dynamic-import' && external)
      text = text.replaceAll(`import(${JSON.stringify(name)})`, `__importPackage(${JSON.stringify(name)})`);
  const left = /(?<![\w$.])import\((?!['$)])/.exec(text);
  if (left) {
    const line = text.slice(0, left.index).split('\n').length;
    throw new Error(`${path}:${line}: an import() the code cache would break; import packages by name`);
  }
  writeFileSync(path, text);
}

/**
 * V8 keeps each module's source text in memory for as long as the process runs, one byte a character
 * when every character fits in Latin-1 and two bytes for the whole text as soon as one does not. esbuild
 * escapes strings but leaves comments and regular expressions as written: one `…` in a comment made the
 * 3 MB server chunk take 6 MB. A \uXXXX escape means the same in a comment, a string, a regular
 * expression and an identifier (a surrogate pair stays a pair), so they are escaped here. The program
 * bundle is made plain ASCII (Latin-1 letters escaped too): the loader then reads it as Latin-1, a copy
 * of its bytes, where decoding 5 MB of UTF-8 took tens of milliseconds.
 */
function keepOneByte(path) {
  const text = readFileSync(path, 'utf8');
  // eslint-disable-next-line no-control-regex -- the range is the point
  const wide = path.endsWith('.cjs') ? /[^\u0000-\u007f]/g : /[^\u0000-\u00ff]/g;
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
