// The command-line program: `agent-service serve [--config FILE] [--host H] [--port N] [--data DIR]`.
// The only module that reads process.env and process.argv.
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError } from './config/load.ts';
import { agentsCommand, chatCommand, loginCommand, type CliIo } from './cli/client-commands.ts';
import { startServer, type RunningServer } from './server.ts';

// V8 lets the old generation grow up to 4x its live size between full collections under load; with
// 1.1x a busy server stays about 60 MB smaller for a few percent of throughput (README, Benchmarks).
// Unlike the young-generation size (a start flag, see bin/agent-service.mjs), this one applies at run time.
setFlagsFromString('--heap-growing-percent=10');

const USAGE = `Usage: agent-service <command> [options]

Commands:
  serve     start the server (default)
  chat      send a message to an agent and stream its answer:
            chat [--agent ID] [--session ID] [--url URL] MESSAGE   (or the message on stdin)
  agents    list the agents of a running server
  login     log in and cache the token: login [--user NAME] [--password P]  (or the password on stdin)
  help      show this text

Options of serve:
  --config FILE   config file (written with defaults when it does not exist)
  --host HOST     listen address (default 127.0.0.1)
  --port N        listen port (default 9527)
  --data DIR      data root (default ./data next to the config file)

Environment: AGENT_SERVICE_HOST, AGENT_SERVICE_PORT, AGENT_SERVICE_DATA_DIR (flags win over them).
Client commands find the server from --url, SERVICE_URL or the config file, and their credential from
SERVICE_API_KEY, then the first enabled api account key in the config file, then the cached login.`;

function fail(message: string): never {
  process.stderr.write(`agent-service: ${message}\n`);
  process.exit(1);
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      data: { type: 'string' },
    },
    strict: true,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535)
      fail(`--port must be a number from 0 to 65535, got "${values.port}"`);
  }
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
    config: values.config,
    host: values.host,
    port,
    data: values.data,
    cwd: process.cwd(),
    env: process.env,
  });
  if (state.stopping) shutdown(state.server);
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'serve') return serve(rest);
  const io: CliIo = {
    env: process.env,
    cwd: process.cwd(),
    out: (text) => void process.stdout.write(text),
    readStdin: async () => {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
  if (command === 'chat') return chatCommand(rest, io);
  if (command === 'agents') return agentsCommand(rest, io);
  if (command === 'login') return loginCommand(rest, io);
  if (command.startsWith('--')) return serve(argv);
  fail(`unknown command "${command}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message);
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    fail(error.message);
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') fail(`the address is already in use: ${(error as Error).message}`);
  if (code === 'EACCES') fail(`permission denied: ${(error as Error).message}`);
  fail(error instanceof Error ? error.message : String(error));
});
