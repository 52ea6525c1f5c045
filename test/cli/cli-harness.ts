// Drives the real binary (node bin/agent-service.mjs) against a real server started in the test.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/server.ts';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  stdin?: string;
  cwd?: string;
}

/** A clean environment: only PATH, the given HOME and what the test adds. */
export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...extra };
}

export function start(
  args: string[],
  home: string,
  options: CliOptions = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? home,
    env: cliEnv(home, options.env),
  });
}

export function cli(args: string[], home: string, options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = start(args, home, options);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(options.stdin ?? '');
  });
}

export interface TestServer {
  server: RunningServer;
  url: string;
  dir: string;
  home: string;
  close(): Promise<void>;
}

/** A server on 127.0.0.1:0 with its own config file; `home` is an empty HOME for the client. */
export async function startTestServer(configText: string): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'cli-server-'));
  const home = await mkdtemp(join(tmpdir(), 'cli-home-'));
  await writeFile(join(dir, 'config.yaml'), configText);
  const server = await startServer({
    config: join(dir, 'config.yaml'),
    port: 0,
    cwd: dir,
    env: {},
    say: () => undefined,
    logLevel: 'silent',
  });
  return {
    server,
    url: server.url,
    dir,
    home,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}

export async function waitFor(read: () => string, pattern: RegExp, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; got:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
