// The logger's destinations: where lines went before (stdout, or the stream a test passes), plus the
// in-memory ring behind GET /logs/server and, when server.log_file is set, a file rotated by size.
import { isAbsolute, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../config/schema.ts';
import { RotatingFile } from '../core/rotating-file.ts';
import { LogRing } from './log-ring.ts';

export interface LogDestinations {
  ring: LogRing;
  /** The log file's path, when server.log_file is set. */
  file?: string;
  /** One stream that writes every line to each destination. */
  stream: NodeJS.WritableStream;
  close(): void;
}

export function logDestinations(config: Config, base?: NodeJS.WritableStream): LogDestinations {
  const ring = new LogRing();
  const server = config.server;
  const path = server.log_file
    ? isAbsolute(server.log_file)
      ? server.log_file
      : resolve(config.data.logs_dir, server.log_file)
    : undefined;
  const file = path
    ? new RotatingFile(path, server.log_file_max_mb * 1024 * 1024, server.log_file_keep)
    : undefined;
  const stdout = base ? undefined : standardOutput();
  // Each stream takes every line; the logger's own level decides which lines are written at all.
  const streams: pino.StreamEntry[] = [
    { level: 'trace', stream: base ?? stdout ?? process.stdout },
    { level: 'trace', stream: ring },
    ...(file ? [{ level: 'trace' as const, stream: file }] : []),
  ];
  return {
    ring,
    ...(path ? { file: path } : {}),
    stream: pino.multistream(streams) as unknown as NodeJS.WritableStream,
    // Standard output needs no closing: its lines go out on their own, the last ones at exit.
    close: () => file?.close(),
  };
}

/** Lines held in memory at most while standard output cannot keep up; past it, new lines are dropped. */
const STDOUT_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * Standard output as the logger's destination. Node writes process.stdout synchronously when it is
 * a file or a pipe, one system call per line, each through a stream's machinery; a server busy with
 * small requests writes a line per request. pino's own destination writes asynchronously instead,
 * joining the lines that arrive while a write is under way into the next one (nothing waits for a
 * buffer to fill: a line goes out as soon as the previous write is done), and writes what is left
 * synchronously when the process exits, crashes included. A terminal keeps process.stdout, as do
 * worker threads (pino flushes on exit only on the main thread).
 *
 * The destination keeps its lines as buffers: in its text mode it appends each line to one growing
 * string and measures that string's UTF-8 length on every write, so V8 copies the whole string each
 * time while lines wait behind a write (6.9 KB allocated per chat turn under load, in the chat
 * benchmark). A line becomes a buffer once, as it would to be written.
 */
function standardOutput(): pino.DestinationStream | undefined {
  if (process.stdout.isTTY || !isMainThread) return undefined;
  const stream = pino.destination({
    dest: 1,
    sync: false,
    maxLength: STDOUT_BACKLOG_BYTES,
    contentMode: 'buffer',
  });
  // Standard output gone (closed, a full disk): the server goes on; pino already stops at EPIPE.
  stream.on('error', () => undefined);
  const write = stream.write.bind(stream) as unknown as (bytes: Buffer) => boolean;
  return { write: (line: string) => void write(Buffer.from(line)) };
}
