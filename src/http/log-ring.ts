// The server's recent log lines, kept in memory for `agent-service logs` and the web UI's Logs page.
// It is one more destination of the logger (beside stdout and the optional rotating file): it gets
// each line as pino wrote it (JSON, secrets already redacted), keeps the newest `capacity` of them
// and tells followers about each new one.
import { EventEmitter } from 'node:events';

export const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LevelName = keyof typeof LEVELS;

export interface LogLine {
  /** Increases by one per line; `after=<seq>` pages on from a line. */
  seq: number;
  time: number;
  level: LevelName;
  msg: string;
  /** The line's other fields (request, error, instance...). */
  fields: Record<string, unknown>;
}

function levelName(value: unknown): LevelName {
  if (typeof value === 'string' && value in LEVELS) return value as LevelName;
  const number = typeof value === 'number' ? value : 30;
  let name: LevelName = 'trace';
  for (const [key, threshold] of Object.entries(LEVELS)) if (number >= threshold) name = key as LevelName;
  return name;
}

export class LogRing {
  private readonly lines: LogLine[] = [];
  private seq = 0;
  private partial = '';
  private readonly events = new EventEmitter();

  constructor(readonly capacity = 2000) {
    this.events.setMaxListeners(0);
  }

  /** The logger's destination interface: one or more newline-ended JSON lines. */
  write(chunk: string | Uint8Array): boolean {
    const text = this.partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > 1_000_000) this.partial = '';
    for (const part of parts) if (part.trim()) this.add(part);
    return true;
  }

  private add(text: string): void {
    let parsed: Record<string, unknown>;
    try {
      const value: unknown = JSON.parse(text);
      parsed = value && typeof value === 'object' ? (value as Record<string, unknown>) : { msg: text };
    } catch {
      parsed = { msg: text };
    }
    const { level, time, msg, pid: _pid, hostname: _hostname, v: _v, ...fields } = parsed;
    const line: LogLine = {
      seq: ++this.seq,
      time: typeof time === 'number' ? time : Date.now(),
      level: levelName(level),
      msg: typeof msg === 'string' ? msg : '',
      fields,
    };
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
    this.events.emit('line', line);
  }

  /** The newest `limit` lines at `level` or above, after `after` (a seq) when given, oldest first. */
  recent(options: { level?: LevelName; limit?: number; after?: number } = {}): LogLine[] {
    const min = LEVELS[options.level ?? 'trace'];
    const after = options.after ?? 0;
    const matching = this.lines.filter((line) => line.seq > after && LEVELS[line.level] >= min);
    return matching.slice(Math.max(0, matching.length - (options.limit ?? this.capacity)));
  }

  /** Calls `listener` with each new line; answers the function that stops it. */
  follow(listener: (line: LogLine) => void): () => void {
    this.events.on('line', listener);
    return () => void this.events.off('line', listener);
  }
}
