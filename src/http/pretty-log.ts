// Log lines for a person at a terminal: pino's JSON lines turned into `12:04:05.123 INFO  message
// key=value`, the way pino-pretty shows them. Only used when stdout is a terminal; anything else
// (a service manager, a container log collector) gets the JSON lines unchanged.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return date.toISOString().slice(11, 23);
}

function value(entry: unknown): string {
  return typeof entry === 'string'
    ? /\s/.test(entry)
      ? JSON.stringify(entry)
      : entry
    : JSON.stringify(entry);
}

/** One JSON log line as one human-readable line (a line that is not JSON is kept as it is). */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = (LEVELS[Number(record['level'])] ?? String(record['level'])).padEnd(5);
  const message = String(record['msg'] ?? '');
  let rest: string;
  if (message === 'request' && typeof record['method'] === 'string') {
    const { method, url, status, ms, ...others } = record;
    rest = `${String(method)} ${String(url)} ${String(status)} ${String(ms)}ms`;
    record = others;
  } else rest = '';
  const fields = Object.entries(record)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, entry]) => `${key}=${value(entry)}`)
    .join(' ');
  return [clock(record['time']), level, message, rest, fields].filter(Boolean).join(' ');
}

/** A stream that takes pino's JSON lines and writes them pretty to `target`. */
export function prettyLogStream(target: NodeJS.WritableStream): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const text = lines.map((line) => `${prettyLine(line)}\n`).join('');
      if (text) target.write(text);
      done();
    },
  });
}
