// RuleGo's exec (components/action/exec_node.go) and ssh nodes: they run commands, so a chain with
// either is refused at load unless the server's config turns them on (engine.allow_exec,
// engine.allow_ssh); never on silently. exec runs the program itself, without a shell.
import { execFile } from 'node:child_process';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { compileExprTemplate } from '../expr-template.ts';
import type { NodeDefinition } from '../types.ts';
import { nodeEnvOf } from './node-env.ts';

const EXEC_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

const execSchema = z.object({
  cmd: z.string().trim().min(1).meta({
    label: 'Command',
    description: 'The program to run; ${metadata.key} and ${msg.key} are replaced.',
  }),
  args: z.array(z.string()).default([]).meta({
    label: 'Arguments',
    description:
      'Its arguments, each with ${...} replaced; as in RuleGo one not starting with " is split at spaces. No shell.',
  }),
  log: z
    .boolean()
    .default(false)
    .meta({ label: 'Log output', description: 'Kept for RuleGo chains; the output is in the run log.' }),
  replaceData: z
    .boolean()
    .default(false)
    .meta({ label: 'Output as data', description: 'The data becomes what the command printed.' }),
});

export const execNode: NodeDefinition<z.infer<typeof execSchema>> = {
  type: 'exec',
  label: 'Run command',
  description:
    'Runs a program on the server (only when engine.allow_exec is on); Failure when it exits with an error.',
  category: 'action',
  relations: ['Success', 'Failure'],
  configSchema: execSchema,
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
};

const sshSchema = z.looseObject({
  host: z.string().default('').meta({ label: 'Host', description: 'The SSH server.' }),
  port: z.number().int().default(22).meta({ label: 'Port', description: 'Its port.' }),
  username: z.string().default('').meta({ label: 'User', description: 'The user to log in as.' }),
  cmd: z.string().default('').meta({ label: 'Command', description: 'The command to run there.' }),
});

export const sshNode: NodeDefinition<z.infer<typeof sshSchema>> = {
  type: 'ssh',
  label: 'SSH command',
  description: 'Runs a command on another host over SSH (only when engine.allow_ssh is on).',
  category: 'external',
  relations: ['Success', 'Failure'],
  configSchema: sshSchema,
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
};
