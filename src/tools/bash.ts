import { spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { DEFAULT_DENY_LIST, checkCommand, compileEntry } from './command-policy.ts';
import { OutputBuffer } from './output-buffer.ts';
import { toolFactory } from './tool-arguments.ts';
import { limitField } from './tool-config.ts';

const validEntries = z.array(z.string().min(1)).refine(
  (entries) =>
    entries.every((entry) => {
      try {
        compileEntry(entry);
        return true;
      } catch {
        return false;
      }
    }),
  { message: 'every entry must be a phrase or a valid /regex/' },
);

export const bashConfigSchema = z.object({
  enabled: z
    .boolean()
    .default(false)
    .meta({ title: 'Enabled', description: 'The tool refuses every command until this is on.' }),
  timeoutMs: limitField(
    100,
    60_000,
    'Time limit (ms)',
    'The command and everything it started is killed after this.',
  ),
  maxOutputBytes: limitField(
    1024,
    64 * 1024,
    'Output cap (bytes)',
    'Beyond this, the middle of the output is cut out.',
  ),
  allow: z.array(z.string().min(1)).default([]).meta({
    title: 'Allowed commands',
    description: 'When set, every command in the line must start with one of these words.',
  }),
  deny: validEntries.default([...DEFAULT_DENY_LIST]).meta({
    title: 'Denied commands',
    description: 'Phrases (whole words) or /regex/ entries that refuse a command. Replaces the default list.',
  }),
  path: z.string().default('/usr/local/bin:/usr/bin:/bin').meta({
    title: 'PATH',
    description: 'The PATH the command runs with; no other variable of the server is passed on.',
  }),
});

export type BashConfig = z.input<typeof bashConfigSchema>;

const bashArguments = z.object({
  command: z.string().min(1).describe('Shell command, run with /bin/sh -c in the workspace folder'),
});

/**
 * Runs a shell command in the workspace folder. Off unless enabled; a time limit, an output cap,
 * an allow/deny list and a scrubbed environment (PATH, HOME = workspace, LANG) bound what it does.
 * It is not a sandbox: the command runs as the server's user.
 */
export const createBashTool = toolFactory({
  name: 'bash',
  description: (settings) =>
    `Run a shell command (/bin/sh -c) in the workspace folder. Time limit ${Math.round(settings.timeoutMs / 1000)} s; long output is cut.`,
  arguments: bashArguments,
  configSchema: bashConfigSchema,
  async execute({ command }, context, settings) {
    if (!settings.enabled) {
      throw new AppError(
        'forbidden',
        'the bash tool is disabled for this agent; set enabled: true in its config',
      );
    }
    checkCommand(command, settings);
    context.signal.throwIfAborted();
    const workspace = await realpath(context.workspaceDir);
    const result = await runCommand(command, workspace, settings, context.signal);
    const parts = [result.output.trimEnd()];
    if (result.timedOut) parts.push(`[timed out after ${settings.timeoutMs} ms; the command was killed]`);
    else if (result.exitCode !== 0) parts.push(`[exit code ${result.exitCode ?? `signal ${result.signal}`}]`);
    return parts.filter((part) => part !== '').join('\n') || '(no output)';
  },
});

interface CommandResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

// The shell leads its own process group (detached), so a timeout or abort kills everything it
// started; leftover background jobs are killed too once the shell exits.
function runCommand(
  command: string,
  workspace: string,
  settings: { timeoutMs: number; maxOutputBytes: number; path: string },
  signal: AbortSignal,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: workspace,
      env: { PATH: settings.path, HOME: workspace, LANG: 'C.UTF-8' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = new OutputBuffer(settings.maxOutputBytes);
    let timedOut = false;
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, settings.timeoutMs);
    const onAbort = (): void => killGroup();
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => output.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.append(chunk));
    child.once('exit', killGroup);
    child.once('error', (error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(new AppError('unavailable', `could not start /bin/sh: ${error.message}`));
    });
    child.once('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) reject(signal.reason);
      else resolve({ output: output.text(), exitCode, signal: exitSignal, timedOut });
    });
  });
}
