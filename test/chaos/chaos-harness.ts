// Real server processes for the chaos tests: started (and restarted) on one data root, killed with
// SIGKILL or stopped with SIGTERM, in single mode or clustered (shared PostgreSQL and Redis). A fake
// Slack receives the answers; slack-events.ts delivers user messages to the live instances.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeSlack } from '../fakes/fake-slack.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'agent-service.mjs');
export const SIGNING_SECRET = 'chaos-signing-secret';
export const BOT_TOKEN = 'xoxb-fake-bot-token';

export interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
  alive(): boolean;
}

export interface Site {
  dir: string;
  configPath: string;
  /** Starts an instance; `env` adds to its environment (AGENT_SERVICE_CRASH_AT, INSTANCE_ID). */
  start(name: string, env?: Record<string, string>): Promise<Proc>;
  /** Base URLs of the instances running now. */
  live(): string[];
  procs(): Proc[];
  close(): Promise<void>;
}

/** The config (JSON is YAML) of a site whose Slack account "ws" takes the Events API. */
export function siteConfig(options: {
  models: unknown;
  slack: FakeSlack;
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', shutdown_timeout_ms: 20_000 },
    models: options.models,
    channels: {
      slack: {
        enabled: true,
        accounts: {
          ws: {
            enabled: true,
            app_secret: BOT_TOKEN,
            signing_secret: SIGNING_SECRET,
            api_base: options.slack.url,
          },
        },
      },
    },
    ...options.extra,
  };
}

export interface SiteOptions {
  /** The data root (default: `data` in the site's folder). */
  dataRoot?: string;
  /** Wraps each instance's command line (program first), e.g. to start it in a namespace. */
  command?: (argv: string[]) => string[];
}

export async function site(config: Record<string, unknown>, options: SiteOptions = {}): Promise<Site> {
  const dir = await mkdtemp(join(tmpdir(), 'chaos-'));
  const dataRoot = options.dataRoot ?? join(dir, 'data');
  const command = options.command ?? ((argv: string[]) => argv);
  const configPath = join(dir, 'config.yaml');
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const started: Proc[] = [];
  return {
    dir,
    configPath,
    live: () => started.filter((proc) => proc.alive()).map((proc) => proc.url),
    procs: () => started,
    async start(name, env = {}) {
      const [program, ...args] = command([
        process.execPath,
        ...[BIN, 'serve', '--config', configPath, '--port', '0', '--data', dataRoot],
      ]);
      const child = spawn(program as string, args, {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, INSTANCE_ID: name, ...env },
      });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const alive = (): boolean => child.exitCode === null && child.signalCode === null;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          const proc: Proc = { name, url: match[1] as string, child, output: () => output, exited, alive };
          started.push(proc);
          return proc;
        }
        if (!alive() || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`instance ${name} did not start; output:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      for (const proc of started) {
        if (proc.alive()) {
          proc.child.kill('SIGKILL');
          await proc.exited;
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until true; returns the time it took, or throws after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Kills `proc` with SIGKILL and waits for it to be gone. */
export async function kill9(proc: Proc): Promise<void> {
  proc.child.kill('SIGKILL');
  await proc.exited;
}

/** The bot's answers in a Slack channel that answer `marker` (placeholders and other texts left out). */
export function answersTo(slack: FakeSlack, channel: string, marker: string): string[] {
  return slack.textsIn(channel).filter((text) => text.includes(`Answer to: ${marker}`));
}

/** An API answer: its status and JSON body (a body that is not JSON comes back as `{text}`). */
export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** One API call to an instance, with a JSON body when `body` is given. */
export async function call(proc: Proc, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${proc.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  try {
    return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  } catch {
    return { status: response.status, json: { text } };
  }
}
