// Real server processes for the clustered-mode tests: each started with the same command as the
// container (bin/agent-service.mjs serve), sharing one config file and one data root.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');
export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export interface Deployment {
  dir: string;
  configPath: string;
  /** Unique per deployment, so tests run in parallel against one Redis. */
  prefix: string;
  start(name: string, options?: { env?: Record<string, string>; nodeArgs?: string[] }): Promise<Instance>;
  /** Stops every instance still running (SIGTERM, then SIGKILL) and removes the folder. */
  close(): Promise<void>;
}

/** The cluster section of a config; ${INSTANCE_ID} names each instance. */
export function clusterSection(prefix: string, redisUrl = REDIS_URL): string {
  return `cluster:\n  redis_url: ${redisUrl}\n  key_prefix: "${prefix}"\n  instance_id: \${INSTANCE_ID:-}\n`;
}

/**
 * A shared config and data root for instances of one deployment. Unless the config names its own
 * `data:` section, the instances share a PostgreSQL schema of their own (the real clustered set-up),
 * dropped on close.
 */
export async function deployment(configText: (prefix: string) => string): Promise<Deployment> {
  const dir = await mkdtemp(join(tmpdir(), 'cluster-'));
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  const configPath = join(dir, 'config.yaml');
  let text = configText(prefix);
  let database: TestDatabase | undefined;
  if (!/^data:/m.test(text)) {
    database = await createTestDatabase('postgres', process.env);
    text += `\ndata:\n  database_url: ${JSON.stringify(database.databaseUrl)}\n`;
  }
  await writeFile(configPath, text);
  const started: Instance[] = [];
  return {
    dir,
    configPath,
    prefix,
    async start(name, options = {}) {
      const child = spawn(
        process.execPath,
        [
          ...(options.nodeArgs ?? []),
          BIN,
          'serve',
          '--config',
          configPath,
          '--port',
          '0',
          '--data',
          join(dir, 'data'),
        ],
        {
          cwd: dir,
          env: { PATH: process.env['PATH'] ?? '', HOME: dir, INSTANCE_ID: name, ...options.env },
        },
      );
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          const instance = { name, url: match[1] as string, child, output: () => output, exited };
          started.push(instance);
          return instance;
        }
        if (child.exitCode !== null || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`instance ${name} did not start; output:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      for (const instance of started) {
        if (instance.child.exitCode === null && instance.child.signalCode === null) {
          instance.child.kill('SIGTERM');
          const timer = setTimeout(() => instance.child.kill('SIGKILL'), 10_000);
          await instance.exited;
          clearTimeout(timer);
        }
      }
      await rm(dir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

export async function api(
  instance: Instance,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: ReturnType<typeof JSON.parse> }> {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

/** Polls `check` until it returns true; returns the time it took, or throws after `ms`. */
export async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
