// The logger's destinations: where lines went before (stdout, or the stream a test passes), plus the
// in-memory ring behind GET /logs/server and, when server.log_file is set, a file rotated by size.
import { isAbsolute, resolve } from 'node:path';
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
  const file = path ? new RotatingFile(path, server.log_file_max_mb * 1024 * 1024, server.log_file_keep) : undefined;
  // Each stream takes every line; the logger's own level decides which lines are written at all.
  const streams: pino.StreamEntry[] = [
    { level: 'trace', stream: base ?? process.stdout },
    { level: 'trace', stream: ring },
    ...(file ? [{ level: 'trace' as const, stream: file }] : []),
  ];
  return {
    ring,
    ...(path ? { file: path } : {}),
    stream: pino.multistream(streams) as unknown as NodeJS.WritableStream,
    close: () => file?.close(),
  };
}
