#!/usr/bin/env node
// Makes sure Debian's chromium is at /usr/bin/chromium for the browser tests: playwright-core
// drives it, and no browser is downloaded by npm. Installs it with apt-get when it is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = '/usr/bin/chromium';

function run(command) {
  // apt-get needs root: run it directly as root, else through sudo without a password prompt.
  const argv = process.getuid?.() === 0 ? command : ['sudo', '-n', ...command];
  const result = spawnSync(argv[0], argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

/** True when chromium is (now) installed. */
export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return true;
  console.error(`${CHROMIUM_PATH} is missing: installing Debian's chromium with apt-get`);
  if (!run(['apt-get', 'update']) || !run(['apt-get', 'install', '-y', 'chromium'])) {
    console.error('could not install chromium: run `apt-get update && apt-get install -y chromium` as root');
    return false;
  }
  return existsSync(CHROMIUM_PATH);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(ensureChromium() ? 0 : 1);
