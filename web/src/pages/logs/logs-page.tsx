// The server's own log lines (GET /api/v1/logs/server): the recent ones, filtered by level, and
// with "Follow" on, each new line as the server writes it (an event stream read with fetch, so the
// sign-in token goes along as on every other call).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, request } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import '../../styles/manage.css';
import '../../styles/logs.css';
import type { LogLineView, ServerLogAnswer } from '@server/resources/server-logs/server-logs.schema.ts';

type LogLine = LogLineView;

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** Lines kept on the page; older ones scroll away. */
const KEPT = 1000;

function fieldsText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
}

/** Yields each `data:` frame of an event-stream response as parsed JSON. */
async function* frames(response: Response): AsyncGenerator<LogLine> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((row) => row.startsWith('data:'))
        .map((row) => row.slice(5).trimStart())
        .join('\n');
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (data) yield JSON.parse(data) as LogLine;
    }
  }
}

export function LogsPage(_props: PageProps) {
  const [level, setLevel] = useState<string>('info');
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<LogLine[]>([]);
  const [file, setFile] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'live' | 'paused' | 'ended'>('loading');
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    setState('loading');
    const query = { level, limit: 200 };
    void (async () => {
      try {
        if (!follow) {
          const answer = await api<ServerLogAnswer>('/logs/server', {
            query,
            signal: controller.signal,
          });
          setLines(answer.data);
          setFile(answer.file);
          setState('paused');
          return;
        }
        const response = await request('/logs/server', {
          query: { ...query, follow: true },
          headers: { accept: 'text/event-stream' },
          signal: controller.signal,
        });
        setLines([]);
        setState('live');
        for await (const line of frames(response))
          setLines((current) => [...current.slice(-(KEPT - 1)), line]);
        setState('ended');
      } catch (error) {
        if (!controller.signal.aborted) setState('ended');
        void error;
      }
    })();
    return () => controller.abort();
  }, [level, follow]);

  useEffect(() => {
    if (follow) bottom.current?.scrollIntoView({ block: 'end' });
  }, [lines.length, follow]);

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('logs.title')}</h1>
        <span class="spacer" />
        <label class="inline-field">
          {t('logs.level')}{' '}
          <select class="input input-auto" value={level} onChange={(e) => setLevel(e.currentTarget.value)}>
            {LEVELS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />{' '}
          {t('logs.follow')}
        </label>
      </div>
      <p class="muted" role="status">
        {state === 'loading'
          ? t('logs.loading')
          : state === 'live'
            ? t('logs.following')
            : state === 'ended'
              ? t('logs.ended')
              : file
                ? t('logs.recentFile', { count: lines.length, file })
                : t('logs.recent', { count: lines.length })}
      </p>
      {lines.length === 0 && state !== 'loading' ? (
        <p class="muted">{t('logs.empty')}</p>
      ) : (
        <div class="log-lines" role="log" aria-label={t('logs.aria')}>
          {lines.map((line) => (
            <div key={line.seq} class={`log-line log-${line.level}`} data-seq={line.seq}>
              <time class="log-time" dateTime={new Date(line.time).toISOString()}>
                {new Date(line.time).toLocaleTimeString()}
              </time>
              <span class="log-level">{line.level}</span>
              <span class="log-msg">{line.msg}</span>
              <span class="log-fields">{fieldsText(line.fields)}</span>
            </div>
          ))}
          <div ref={bottom} />
        </div>
      )}
    </div>
  );
}
