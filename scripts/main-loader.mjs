// dist/main.js: scripts/build.mjs copies this file there. It runs the program's bundle
// (dist/main.bundle.cjs, CommonJS) through vm.Script with a V8 code cache, so a start deserializes the
// functions an earlier start compiled instead of parsing and compiling them again. Node 20 has no code
// cache for ES modules (module.enableCompileCache came with Node 22); compiling the 3 MB of ES module
// chunks was the largest single item of a start's CPU (README, Performance round: start-up).
//
// The cache is written by the first start that had none, or whose cache V8 rejected, once the server
// is ready or the client command is done (src/main.ts emits 'agent-service:ready'), so it holds the
// functions the start ran and not only the bundle's top level. One file per Node version and set of
// Node flags (V8 refuses a cache made under other flags, and tests and `npm start` run with different
// ones), named after the bundle's size and time too: V8 checks only a script's length, and a rebuilt
// bundle of the same length must never run an old cache. scripts/build.mjs deletes the caches of
// earlier bundles. A cache V8 rejects (another V8, a damaged file) only costs the compile it would
// have saved, and is replaced.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';

// V8 refuses a code cache made under other V8 flags, and src/main.ts sets this one as it starts: it is
// set here first, so the cache is made and read under the same flags (setting it again changes nothing).
setFlagsFromString('--heap-growing-percent=10');

const filename = fileURLToPath(new URL('main.bundle.cjs', import.meta.url));
const folder = dirname(filename);
const bundle = statSync(filename);
// A server start and a client command (`agent-service status`) run different functions, and the
// cache holds the ones its writer ran, so each keeps its own. `serve` is the default command; a guess
// wrong either way (an option's value that reads "start") only makes a cache fit less well.
const args = process.argv.slice(2);
const role = args.length === 0 || args.includes('serve') || args.includes('start') ? 'serve' : 'client';
const key = createHash('sha256')
  .update(
    [
      role,
      process.version,
      process.arch,
      bundle.size,
      bundle.mtimeMs,
      ...process.execArgv,
      process.env['NODE_OPTIONS'] ?? '',
    ].join('\n'),
  )
  .digest('hex')
  .slice(0, 16);
const cacheName = `main.bundle.${key}.v8-cache`;
const cacheFile = `${folder}/${cacheName}`;

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // No cache yet (or an unreadable one): compile from source, and write one once ready.
}

// The bundle is one function expression (scripts/build.mjs): the wrapper Node gives a CommonJS file,
// plus `import.meta` (the bundle's uses of it), which names this file, so paths relative to it
// (../package.json, the worker entries beside it) hold as they did for the ES module build, and the
// bundle's import() of the packages it loads on first use. The bundle has no import() of its own:
// Node 20 loses a script's dynamic-import callback when V8 reads the script from a code cache, and
// such an import() then fails ("A dynamic import callback was not specified"). This module's import()
// resolves from dist/, as the bundle's would. The build makes the bundle plain ASCII, so reading it as
// Latin-1 is exact, and faster than decoding UTF-8.
const source = readFileSync(filename, 'latin1');
const script = new vm.Script(source, { filename, cachedData });

if (cachedData === undefined || script.cachedDataRejected) {
  process.once('agent-service:ready', writeCache);
}

/**
 * Writes the cache atomically, so a start reading it meanwhile sees the old file or the new one, and
 * synchronously, as a client command exits next.
 */
function writeCache() {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  let fd;
  try {
    // Opened before the cache is made: a read-only install (every start then compiles from source, as
    // without a cache) does not pay for serializing it.
    fd = openSync(temporary, 'w');
    writeFileSync(fd, script.createCachedData());
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, cacheFile);
  } catch {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, { force: true });
  }
}

const module = { exports: {} };
const importPackage = (specifier) => import(specifier);
script.runInThisContext()(
  module.exports,
  createRequire(filename),
  module,
  filename,
  folder,
  { url: import.meta.url },
  importPackage,
);
