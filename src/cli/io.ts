// What the command-line program gets from the process: streams, environment, paths. main.ts builds
// it from `process`; tests drive the real binary, so nothing here is faked.
import type { Env } from '../config/load.ts';

export interface OutStream {
  write(text: string): boolean;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export interface InStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean | undefined;
  setRawMode?: ((mode: boolean) => unknown) | undefined;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface ServeFlags {
  config?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  data?: string | undefined;
}

export interface CliIo {
  env: Env;
  cwd: string;
  home: string;
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream & NodeJS.ReadableStream;
  /** The package version (package.json). */
  version: string;
  /** Absolute paths of node and of bin/agent-service.mjs, for the systemd unit. */
  nodePath: string;
  scriptPath: string;
  /** Starts the server (main.ts loads it only for this command). */
  serve: (flags: ServeFlags) => Promise<void>;
  /** Installs a handler for SIGINT; returns a function that removes it. */
  onInterrupt: (handler: () => void) => () => void;
}

/** ANSI styles, on only for a terminal and never with NO_COLOR or --no-color. */
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createStyle(stream: OutStream, env: Env, allowed = true): Style {
  const enabled = allowed && stream.isTTY === true && env['NO_COLOR'] === undefined && env['TERM'] !== 'dumb';
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner on stderr while `work` runs, only when stderr is a terminal. */
export async function withSpinner<T>(stream: OutStream, text: string, work: Promise<T>): Promise<T> {
  if (stream.isTTY !== true) return work;
  let frame = 0;
  const draw = (): void => void stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}`);
  draw();
  const timer = setInterval(draw, 80);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    stream.write('\r\u001b[2K');
  }
}

/** Columns padded for a terminal; tab-separated, without the header, when piped (for cut and awk). */
export function formatTable(stream: OutStream, header: string[], rows: string[][], style: Style): string {
  if (stream.isTTY !== true) return rows.map((row) => `${row.join('\t')}\n`).join('');
  if (rows.length === 0) return `${style.dim('(none)')}\n`;
  const widths = header.map((title, index) =>
    Math.max(title.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (row: string[]): string =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [style.bold(line(header)), ...rows.map(line)].map((text) => `${text}\n`).join('');
}
