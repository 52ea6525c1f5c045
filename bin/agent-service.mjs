#!/usr/bin/env node
// Entry point of the command-line program. It runs the compiled dist/main.js when that is at least as
// new as every file under src/ (npm install builds it), and otherwise compiles src/main.ts on the fly
// with tsx, so an edited checkout never runs stale code.
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

const fresh = existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource(join(root, 'src'));
if (fresh && process.env.AGENT_SERVICE_FROM_SOURCE !== '1') {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
