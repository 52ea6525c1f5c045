// RuleGo's exec (components/action/exec_node.go) and ssh nodes: they run commands, so a chain with
// either is refused at load unless the server's config turns them on (engine.allow_exec,
// engine.allow_ssh); never on silently. exec runs the program itself, without a shell.
import { execFile } from 'node:child_process';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { compileExprTemplate } from '../expr-template.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { flag, optionalText, requiredText } from './config-fields.ts';

const EXEC_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

const execSchema = z.object({
  cmd: requiredText('Command', 'The program to run; ${metadata.key} and ${msg.key} are replaced.'),
  args: z.array(z.string()).default([]).meta({
    label: 'Arguments',
    description:
      'Its arguments, each with ${...} replaced; as in RuleGo one not starting with " is split at spaces. No shell.',
  }),
  log: flag('Log output', 'Kept for RuleGo chains; the output is in the run log.'),
  replaceData: flag('Output as data', 'The data becomes what the command printed.'),
});

export const execNode = defineNode(execSchema, {
  type: 'exec',
  label: 'Run command',
  description:
    'Runs a program on the server (only when engine.allow_exec is on); Failure when it exits with an error.',
  category: 'action',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const { nodeId, services } = factory;
    if (services['allowExec'] !== true) {
      throw new AppError(
        'invalid',
        'the exec node is turned off on this server: set engine.allow_exec to true to allow it',
      );
    }
    const cmd = compileExprTemplate(config.cmd, `node "${nodeId}" cmd`);
    // RuleGo splits an argument at each space unless it starts with a double quote (kept whole).
    const args = config.args
      .flatMap((arg) => (arg.startsWith('"') ? [arg] : arg.split(' ')))
      .map((arg) => compileExprTemplate(arg, `node "${nodeId}" args`));
    const envOf = nodeEnvOf(factory, true);
    return {
      async process(message, context) {
        const env = envOf(message, context);
        const output = await new Promise<string>((resolve, reject) => {
          execFile(
            cmd.render(env),
            args.map((arg) => arg.render(env)),
            {
              timeout: EXEC_TIMEOUT_MS,
              maxBuffer: MAX_OUTPUT_BYTES,
              signal: context.signal,
              shell: false,
              // RuleGo's metadata workDir is the working folder.
              ...(message.metadata['workDir'] ? { cwd: message.metadata['workDir'] } : {}),
            },
            (error, stdout, stderr) => {
              if (error) reject(new Error(String(stderr).trim() || error.message));
              // As RuleGo: the output, or what went to stderr when the output is empty.
              else resolve(String(stdout) === '' ? String(stderr) : String(stdout));
            },
          );
        });
        return [
          { relation: 'Success', message: config.replaceData ? { ...message, data: output } : message },
        ];
      },
    };
  },
});

const sshSchema = z.looseObject({
  host: optionalText('Host', 'The SSH server.'),
  port: z.number().int().default(22).meta({ label: 'Port', description: 'Its port.' }),
  username: optionalText('User', 'The user to log in as.'),
  cmd: optionalText('Command', 'The command to run there.'),
});

export const sshNode = defineNode(sshSchema, {
  type: 'ssh',
  label: 'SSH command',
  description: 'Runs a command on another host over SSH (only when engine.allow_ssh is on).',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(_config, { services }) {
    if (services['allowSsh'] !== true) {
      throw new AppError(
        'invalid',
        'the ssh node is turned off on this server: set engine.allow_ssh to true to allow it',
      );
    }
    // No SSH client library ships with this server (issue 27 leaves it out); said at load, not at run.
    throw new AppError(
      'invalid',
      'the ssh node is allowed by engine.allow_ssh but this build has no SSH client',
    );
  },
});
