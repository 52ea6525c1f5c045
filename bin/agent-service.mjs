#!/usr/bin/env node
// Entry point of the command-line program. It runs the compiled dist/main.js when that is at least as
// new as every file under src/ (npm install builds it), and otherwise compiles src/main.ts on the fly
// with tsx, so an edited checkout never runs stale code.
//
// `npm start` runs this with --max-semi-space-size=8: V8 grows the young generation to 2 x 16 MiB
// during start-up and keeps it; 8 MiB semi-spaces keep a busy server about 20 MB smaller for a few
// percent of throughput (README, Benchmarks). The shebang stays plain `node`, because `env -S` is
// missing on some systems (BusyBox); run the installed command with
// NODE_OPTIONS=--max-semi-space-size=8 for the same effect.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist', 'main.js');

function newestSource(folder) {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// An installed package ships dist/ without src/: run dist.
const sources = join(root, 'src');
const fresh =
  existsSync(compiled) && (!existsSync(sources) || statSync(compiled).mtimeMs >= newestSource(sources));
if (fresh && process.env.AGENT_SERVICE_FROM_SOURCE !== '1') {
  await import(pathToFileURL(compiled).href);
} else {
  // Said, not silent: the start is slower, and `npm run build` makes it fast again. Only on a terminal,
  // so scripts and pipes read exactly what they asked for.
  if (process.stderr.isTTY && process.env.AGENT_SERVICE_FROM_SOURCE !== '1')
    process.stderr.write(
      existsSync(compiled)
        ? 'note: src/ is newer than dist/: running from source (a slower start); `npm run build` updates dist/\n'
        : 'note: dist/ is not built: running from source (a slower start); `npm run build` builds it\n',
    );
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
