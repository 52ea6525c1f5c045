// The CLI (bin/agent-service.mjs) as a child process with its output collected, for the tests that
// start a real server (serve, the data root lock).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs `agent-service <args>` in `cwd`, with only PATH, HOME (= cwd) and `env` in its environment. */
export function run(args: string[], cwd: string, env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until the output matches `pattern` and returns the match. */
export async function waitFor(started: Started, pattern: RegExp, ms = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const match = pattern.exec(started.output());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${pattern}; output:\n${started.output()}`);
}
