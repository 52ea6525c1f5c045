// `logs`: the server's recent log lines (GET /logs/server); --follow keeps printing new ones.
import { InvalidArgumentError, type Command } from 'commander';
import type { ApiClient } from '../client.ts';
import type { Context } from '../context.ts';
import type { LogLineView, ServerLogAnswer } from '../../resources/server-logs/server-logs.schema.ts';
import { SseFrames } from '../sse-frames.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

function parseLevel(value: string): string {
  if (!LEVELS.includes(value)) throw new InvalidArgumentError(`use one of ${LEVELS.join(', ')}`);
  return value;
}

function parseLimit(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 10_000)
    throw new InvalidArgumentError('a whole number from 1 to 10000');
  return number;
}

function human(cx: Context, line: LogLineView): string {
  const s = cx.style;
  const colours: Partial<Record<LogLineView['level'], (text: string) => string>> = {
    warn: s.yellow,
    error: s.red,
    fatal: s.red,
    debug: s.dim,
    trace: s.dim,
  };
  const colour = colours[line.level] ?? ((t: string) => t);
  const time = new Date(line.time).toISOString().replace('T', ' ').replace('Z', '');
  const fields = Object.entries(line.fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${s.dim(time)} ${colour(line.level.toUpperCase().padEnd(5))} ${line.msg}${fields ? ` ${s.dim(fields)}` : ''}\n`;
}

/** Reads `data:` frames of an SSE response until it ends or `signal` aborts. */
async function* frames(response: Response, signal: AbortSignal): AsyncGenerator<string> {
  const reader = response.body?.getReader();
  if (!reader) return;
  const sse = new SseFrames();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done || signal.aborted) return;
    yield* sse.push(value);
  }
}

async function follow(
  cx: Context,
  api: ApiClient,
  query: Record<string, string | number | undefined>,
  print: (line: LogLineView) => void,
): Promise<void> {
  const controller = new AbortController();
  const release = cx.io.onInterrupt(() => controller.abort());
  try {
    const response = await api.send('GET', '/logs/server', {
      query: { ...query, follow: 'true' },
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    for await (const data of frames(response, controller.signal)) print(JSON.parse(data) as LogLineView);
    if (!controller.signal.aborted) cx.note('the server closed the log stream');
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  } finally {
    release();
  }
}

export function registerLogs(program: Command, cx: Context): void {
  program
    .command('logs')
    .description("print the server's recent log lines (-f: and then new ones as they are written)")
    .option('-f, --follow', 'keep printing new lines until interrupted (Ctrl-C)')
    .option('-l, --level <level>', `only lines at this level or above (${LEVELS.join(', ')})`, parseLevel)
    .option('-n, --lines <n>', 'how many recent lines (default 200)', parseLimit)
    .option('--json', 'one JSON object per line')
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service logs -n 50 --level warn\n  agent-service logs -f --json | jq .msg',
    )
    .action(
      async (
        options: { follow?: boolean; level?: string; lines?: number; json?: boolean },
        command: Command,
      ) => {
        const api = await cx.api(command);
        const print = (line: LogLineView): void =>
          cx.out(options.json ? `${JSON.stringify(line)}\n` : human(cx, line));
        const query = { level: options.level, limit: options.lines ?? 200 };
        if (options.follow) return follow(cx, api, query, print);
        const answer = await api.get<ServerLogAnswer>('/logs/server', query);
        for (const line of answer.data) print(line);
      },
    );
}
