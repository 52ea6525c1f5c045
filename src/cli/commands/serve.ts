// `serve` (alias `start`): runs the server in this process.
import type { Command } from 'commander';
import { usageError } from '../errors.ts';
import type { Context } from '../context.ts';

export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw usageError(`--port must be a number from 0 to 65535, got "${text}"`);
  return port;
}

export function registerServe(program: Command, cx: Context): void {
  program
    .command('serve')
    .alias('start')
    .description('start the server in this process (the default when no command is given)')
    .option('--host <host>', 'listen address (default 127.0.0.1; env AGENT_SERVICE_HOST)')
    .option('-p, --port <port>', 'listen port (default 9527; env AGENT_SERVICE_PORT)')
    .option('--data <dir>', 'data root (default ./data next to the config file; env AGENT_SERVICE_DATA_DIR)')
    .addHelpText(
      'after',
      '\nThe config file is --config, else ./config.yaml, ./configs/config.yaml, ~/.agent-service/config.yaml.\n' +
        'Flags win over the environment, which wins over the file.\n\nExample:\n  agent-service serve --port 9601 --config ./config.yaml',
    )
    .action(async (options: { host?: string; port?: string; data?: string }, command: Command) => {
      const port = options.port === undefined ? undefined : parsePort(options.port);
      cx.keepAlive = true;
      await cx.io.serve({ config: cx.globals(command).config, host: options.host, port, data: options.data });
    });
}
