// Reading secrets and answers from the user: echo off in a terminal (raw mode), or lines from a pipe.
import { CliError, usageError } from './errors.ts';
import type { CliIo } from './io.ts';

/** Lines of a piped stdin, read once and handed out one at a time. */
export class PipedLines {
  private lines: string[] | undefined;
  constructor(private readonly io: CliIo) {}

  async next(): Promise<string | undefined> {
    if (!this.lines) {
      const chunks: Buffer[] = [];
      for await (const chunk of this.io.stdin) chunks.push(Buffer.from(chunk));
      this.lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
    }
    return this.lines.shift();
  }
}

/** Prompts on stderr and reads a line with echo off; Ctrl-C aborts with exit code 130 semantics. */
export function readHidden(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode?.(true);
    stdin.resume();
    const finish = (error?: Error): void => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new CliError('cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    stdin.on('data', onData);
  });
}

/** A secret from the terminal (echo off) or the next line of a piped stdin. */
export async function readSecret(io: CliIo, prompt: string, piped: PipedLines): Promise<string> {
  const value = io.stdin.isTTY ? await readHidden(io, prompt) : await piped.next();
  if (!value) throw new CliError(`no value given for "${prompt.replace(/:\s*$/, '')}"`);
  return value;
}

/** A yes/no question in a terminal; false when stdin is not one. */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (!io.stdin.isTTY) return false;
  io.stderr.write(`${question} [y/N] `);
  const answer = await new Promise<string>((resolve) => {
    const onData = (chunk: Buffer): void => {
      io.stdin.off('data', onData);
      io.stdin.pause();
      resolve(chunk.toString('utf8').trim());
    };
    io.stdin.on('data', onData);
    io.stdin.resume();
  });
  return /^y(es)?$/i.test(answer);
}

/**
 * Asks before a step that cannot be undone: `--yes` skips the question; on a terminal the user
 * answers; with stdin piped (a script) it refuses, saying to add --yes. False when the user said no.
 */
export async function confirmOrYes(
  io: CliIo,
  yes: boolean | undefined,
  question: string,
  what: string,
): Promise<boolean> {
  if (yes) return true;
  if (!io.stdin.isTTY) throw usageError(`${what} needs --yes when stdin is not a terminal`);
  return confirm(io, question);
}

/** All of a piped stdin as text; empty for a terminal. */
export async function readAllStdin(io: CliIo): Promise<string> {
  if (io.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
