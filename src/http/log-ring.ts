// The server's recent log lines, kept in memory for `agent-service logs` and the web UI's Logs page.
// It is one more destination of the logger (beside stdout and the optional rotating file): it gets
// each line as pino wrote it (JSON, secrets already redacted), keeps the newest `capacity` of them
// and tells followers about each new one.
import { EventEmitter } from 'node:events';
import { LEVELS, type LevelName } from './log-levels.ts';

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

/** A line as it arrived; parsed into a LogLine only when someone reads or follows the ring. */
interface StoredLine {
  seq: number;
  text: string;
  parsed: LogLine | undefined;
}

export class LogRing {
  /**
   * The newest lines, oldest first from `start` (a circular buffer: a full ring overwrites its
   * oldest line instead of shifting 2,000 entries per line). Lines are kept as the logger wrote
   * them: a busy server writes a line per request, and parsing each back from JSON cost more than
   * writing it, while the ring is read only by `agent-service logs` and the web UI.
   */
  private readonly lines: StoredLine[] = [];
  private start = 0;
  private seq = 0;
  private partial = '';
  private readonly events = new EventEmitter();

  constructor(readonly capacity = 2000) {
    this.events.setMaxListeners(0);
  }

  /** The logger's destination interface: one or more newline-ended JSON lines. */
  write(chunk: string | Uint8Array): boolean {
    const text = this.partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    let from = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', from)) {
      const part = text.slice(from, end);
      from = end + 1;
      if (part.trim()) this.add(part);
    }
    this.partial = from === 0 ? text : text.slice(from);
    if (this.partial.length > 1_000_000) this.partial = '';
    return true;
  }

  private add(text: string): void {
    const stored: StoredLine = { seq: ++this.seq, text, parsed: undefined };
    if (this.lines.length < this.capacity) this.lines.push(stored);
    else {
      this.lines[this.start] = stored;
      this.start = (this.start + 1) % this.capacity;
    }
    if (this.events.listenerCount('line') > 0) this.events.emit('line', parsedLine(stored));
  }

  /** The newest `limit` lines at `level` or above, after `after` (a seq) when given, oldest first. */
  recent(options: { level?: LevelName; limit?: number; after?: number } = {}): LogLine[] {
    const min = LEVELS[options.level ?? 'trace'];
    const after = options.after ?? 0;
    const matching: LogLine[] = [];
    for (let index = 0; index < this.lines.length; index += 1) {
      const stored = this.lines[(this.start + index) % this.lines.length] as StoredLine;
      if (stored.seq <= after) continue;
      const line = parsedLine(stored);
      if (LEVELS[line.level] >= min) matching.push(line);
    }
    return matching.slice(Math.max(0, matching.length - (options.limit ?? this.capacity)));
  }

  /** Calls `listener` with each new line; answers the function that stops it. */
  follow(listener: (line: LogLine) => void): () => void {
    this.events.on('line', listener);
    return () => void this.events.off('line', listener);
  }
}

function parsedLine(stored: StoredLine): LogLine {
  if (stored.parsed) return stored.parsed;
  let parsed: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(stored.text);
    parsed = value && typeof value === 'object' ? (value as Record<string, unknown>) : { msg: stored.text };
  } catch {
    parsed = { msg: stored.text };
  }
  const { level, time, msg, pid: _pid, hostname: _hostname, v: _v, ...fields } = parsed;
  stored.parsed = {
    seq: stored.seq,
    time: typeof time === 'number' ? time : Date.now(),
    level: levelName(level),
    msg: typeof msg === 'string' ? msg : '',
    fields,
  };
  return stored.parsed;
}
