// The command-line program `agent-service` (src/cli/program.ts has the commands). The only module that
// reads process.env and process.argv; the server code is loaded only by `serve`.
import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runCli } from './cli/program.ts';
import type { ServeFlags } from './cli/io.ts';

// V8 lets the old generation grow up to 4x its live size between full collections under load; with
// 1.1x a busy server stays about 60 MB smaller for a few percent of throughput (README, Benchmarks).
// Unlike the young-generation size (a start flag, see bin/agent-service.mjs), this one applies at run time.
setFlagsFromString('--heap-growing-percent=10');

// src/main.ts and the bundled dist/main.js both sit one folder below package.json and bin/.
const root = new URL('..', import.meta.url);
const version = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string })
  .version;

// `chat ... | head` closes the pipe early: that is the reader's choice, not a failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/**
 * Tells dist/main.js (scripts/main-loader.mjs) that the functions this start runs are compiled, so its
 * V8 code cache, if it writes one, holds them. Under tsx nothing listens.
 */
function codeCompiled(): void {
  (process as NodeJS.EventEmitter).emit('agent-service:ready');
}

async function serve(flags: ServeFlags): Promise<void> {
  const { startServer } = await import('./server.ts');
  type RunningServer = Awaited<ReturnType<typeof startServer>>;
  // Signal handlers come first, so a signal during start-up is not the default abrupt exit.
  const state: { server?: RunningServer; stopping: boolean } = { stopping: false };
  const shutdown = (running: RunningServer): void => {
    const limit = running.store.current.server.shutdown_timeout_ms;
    const timer = setTimeout(() => {
      process.stderr.write(`in-flight requests did not finish within ${limit} ms; exiting\n`);
      process.exit(0);
    }, limit);
    timer.unref();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  const stop = (signal: string): void => {
    if (state.stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    state.stopping = true;
    process.stderr.write(`${signal}: finishing in-flight requests, then exiting\n`);
    if (state.server) shutdown(state.server);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  state.server = await startServer({
    ...flags,
    cwd: process.cwd(),
    env: process.env,
    prettyLogs: process.stdout.isTTY === true,
  });
  if (state.stopping) shutdown(state.server);
  else codeCompiled();
}

// No top-level await: the build makes this program a CommonJS bundle (scripts/build.mjs).
void runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  home: process.env['HOME'] || homedir(),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  version,
  nodePath: process.execPath,
  scriptPath: realpathSync(process.argv[1] ?? new URL('bin/agent-service.mjs', root).pathname),
  serve,
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => void process.off('SIGINT', handler);
  },
}).then((result) => {
  if (result.serving) return;
  codeCompiled();
  // Client commands end here even if a keep-alive socket is still open; the server keeps running.
  process.exit(result.exitCode);
});
