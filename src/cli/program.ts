// The command-line program: commander with one file per command group under commands/. Exit codes:
// 0 done, 1 failed, 2 wrong usage; every error is one line on stderr.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load.ts';
import { CliError } from './errors.ts';
import { Context, type GlobalOptions } from './context.ts';
import type { CliIo } from './io.ts';
import { registerAgent } from './commands/agent.ts';
import { registerAgents } from './commands/agents.ts';
import { registerAuth } from './commands/auth.ts';
import { registerConfig } from './commands/config.ts';
import { registerCron } from './commands/cron.ts';
import { registerLogs } from './commands/logs.ts';
import { registerBackup } from './commands/backup.ts';
import { registerMessaging } from './commands/messaging.ts';
import { registerPairing } from './commands/pairing.ts';
import { registerOnboard } from './commands/onboard.ts';
import { registerProviders } from './commands/providers.ts';
import { registerRules } from './commands/rules.ts';
import { registerServe } from './commands/serve.ts';
import { registerSessions } from './commands/sessions.ts';
import { registerService } from './commands/service.ts';
import { registerSkills } from './commands/skills.ts';
import { registerStatus } from './commands/status.ts';
import { registerWorkspace } from './commands/workspace.ts';
import { registerUsage } from './commands/usage.ts';
import { registerMemory } from './commands/memory.ts';

const ADDRESS_HELP = `
Server address, the first that is set:
  1. --url (host:port, http://host:port or .../api/v1)
  2. SERVICE_URL
  3. the server running on the config file's data root (its address is kept in <data root>/server.lock,
     so a server started with --port is found)
  4. the host and port of the config file (--config, ./config.yaml, ./configs/config.yaml,
     ~/.agent-service/config.yaml)
  5. http://127.0.0.1:9527
Credentials: SERVICE_API_KEY, else (chat only) the first enabled api account key of the config file,
else the token kept by \`agent-service login\` for that server.
Exit codes: 0 done, 1 failed, 2 wrong usage.`;

export function buildProgram(cx: Context): Command {
  const program = new Command('agent-service')
    .description(
      'Agent Service: AI agents as rule chains, served over REST, chat completions and chat channels.',
    )
    .version(cx.io.version, '-V, --version', 'print the version')
    .option('--url <url>', 'server address (default: SERVICE_URL, then the config file)')
    .option('-c, --config <file>', 'config file')
    .option('--no-color', 'no colours (NO_COLOR is honoured too)')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => void cx.io.stdout.write(text),
      writeErr: (text) => void cx.io.stderr.write(text),
      outputError: (text, write) => write(cx.errStyle.red(text)),
    })
    .addHelpText('after', ADDRESS_HELP)
    .hook('preAction', (thisCommand) => cx.applyGlobals(thisCommand.opts<GlobalOptions>()));
  registerServe(program, cx);
  registerStatus(program, cx);
  registerConfig(program, cx);
  registerProviders(program, cx);
  registerAgents(program, cx);
  registerAgent(program, cx);
  registerRules(program, cx);
  registerSkills(program, cx);
  registerWorkspace(program, cx);
  registerMemory(program, cx);
  registerCron(program, cx);
  registerUsage(program, cx);
  registerMessaging(program, cx);
  registerSessions(program, cx);
  registerAuth(program, cx);
  registerPairing(program, cx);
  registerOnboard(program, cx);
  registerService(program, cx);
  registerLogs(program, cx);
  registerBackup(program, cx);
  return program;
}

/** With no command, or only serve flags, the program serves (as `npm start -- --port 9000` expects). */
function withDefaultCommand(program: Command, argv: string[]): string[] {
  const names = new Set(program.commands.flatMap((command) => [command.name(), ...command.aliases()]));
  names.add('help');
  if (argv.some((word) => names.has(word))) return argv;
  const serveFlag = /^(--(host|port|data|config)(=.*)?|-p|-c)$/;
  return argv.length === 0 || serveFlag.test(argv[0] ?? '') ? ['serve', ...argv] : argv;
}

export interface CliResult {
  exitCode: number;
  /** True when the server was started: the process must keep running. */
  serving: boolean;
}

export async function runCli(argv: string[], io: CliIo): Promise<CliResult> {
  const cx = new Context(io);
  const program = buildProgram(cx);
  try {
    await program.parseAsync(withDefaultCommand(program, argv), { from: 'user' });
    return { exitCode: 0, serving: cx.keepAlive };
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed its message (with a suggestion for a typo) already.
      const done = ['commander.helpDisplayed', 'commander.version'].includes(error.code);
      return { exitCode: done ? 0 : 2, serving: false };
    }
    const message =
      error instanceof CliError || error instanceof ConfigError ? error.message : describeUnexpected(error);
    io.stderr.write(`${cx.errStyle.red('error:')} ${message}\n`);
    return { exitCode: error instanceof CliError ? error.exitCode : 1, serving: false };
  }
}

function describeUnexpected(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'EADDRINUSE') return `the address is already in use: ${message}`;
  if (code === 'EACCES') return `permission denied: ${message}`;
  return message;
}
