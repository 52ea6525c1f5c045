// Runs a chain once with a test message (type, metadata, data) and shows its run log node by node:
// each logged node's relations, the message it received and sent on (data and metadata), its error.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, request } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { Page } from '../../types.ts';
import type { LoggedMessage, NodeLog, RunLog } from './rule-types.ts';

interface Props {
  chainId: string;
  debugMode: boolean;
  loaded: boolean;
  onEnableDebug: () => Promise<void>;
  /** The run log shown, for the graph to colour its nodes. */
  onShown?: (run: RunLog | null) => void;
}

function pretty(data: string, dataType?: string): string {
  if (dataType !== undefined && dataType !== 'JSON') return data;
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

/** key=value lines, or a JSON object, into string metadata; a bad line is an error naming it. */
export function parseMetadata(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (trimmed.startsWith('{')) {
    const value = JSON.parse(trimmed) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        typeof item === 'string' ? item : JSON.stringify(item),
      ]),
    );
  }
  const metadata: Record<string, string> = {};
  for (const [index, line] of trimmed.split('\n').entries()) {
    if (line.trim() === '') continue;
    const equals = line.indexOf('=');
    if (equals <= 0) throw new Error(t('run.metadataLine', { line: index + 1 }));
    metadata[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
  }
  return metadata;
}

const outcomeText = (outcome: RunLog['outcome']) =>
  outcome === 'success' ? t('run.outcome.success') : t('run.outcome.failure');

function MessageBlock({ title, message }: { title: string; message: LoggedMessage }) {
  return (
    <details>
      <summary>
        {title}
        {message.type ? t('run.type', { type: message.type }) : ''}
        {message.truncated ? t('run.cut') : ''}
      </summary>
      <pre class="data-block">{pretty(message.data, message.dataType)}</pre>
      <pre class="data-block">{JSON.stringify(message.metadata, null, 2)}</pre>
    </details>
  );
}

function NodeEntry({ log }: { log: NodeLog }) {
  const relations = log.relationTypes.length > 0 ? log.relationTypes : log.err ? ['Failure'] : [];
  return (
    <li class="node-log" data-node={log.nodeId}>
      <div class="node-log-head">
        <span class="node-log-id">{log.nodeId}</span>
        <span class="muted">{log.nodeType}</span>
        {relations.map((relation) => (
          <span key={relation} class={relation === 'Failure' ? 'badge badge-error' : 'badge badge-ok'}>
            {relation}
          </span>
        ))}
        <span class="spacer" />
        <span class="muted">{Math.max(0, log.endTs - log.startTs)} ms</span>
      </div>
      {log.err && <p class="node-log-error">{log.err}</p>}
      <MessageBlock title={t('run.in')} message={log.inMsg} />
      {log.outMsgs.map((out, index) => (
        <MessageBlock key={index} title={t('run.out', { relation: out.relationType })} message={out.msg} />
      ))}
    </li>
  );
}

export function RunPanel({ chainId, debugMode, loaded, onEnableDebug, onShown }: Props) {
  const [messageType, setMessageType] = useState('');
  const [metadataText, setMetadataText] = useState('');
  const [dataText, setDataText] = useState('{\n  "temperature": 25\n}');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [runs, setRuns] = useState<RunLog[]>([]);
  const [shown, setShown] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  const loadRuns = useCallback(async () => {
    try {
      const page = await api<Page<RunLog>>('/logs/runs', {
        query: { chainId, page: 1, size: 10 },
        quiet: true,
      });
      setRuns(page.data);
      return page.data;
    } catch {
      return [];
    }
  }, [chainId]);
  useEffect(() => {
    void loadRuns().then((list) => setShown(list[0]?.id ?? null));
  }, [loadRuns]);

  const execute = async (event: Event) => {
    event.preventDefault();
    let metadata: Record<string, string>;
    let body: unknown;
    try {
      metadata = parseMetadata(metadataText);
    } catch (error) {
      setResult({ ok: false, text: error instanceof Error ? error.message : String(error) });
      return;
    }
    const trimmed = dataText.trim();
    try {
      body = trimmed === '' ? undefined : (JSON.parse(trimmed) as unknown);
    } catch {
      body = dataText; // not JSON: sent as text
    }
    const path = `/rules/${encodeURIComponent(chainId)}/execute${messageType.trim() ? `/${encodeURIComponent(messageType.trim())}` : ''}`;
    setRunning(true);
    try {
      const response = await request(path, { method: 'POST', body, query: metadata, quiet: true });
      const text = await response.text();
      setResult({ ok: true, text: pretty(text) });
    } catch (error) {
      if (error instanceof ApiError && error.status !== 401) setResult({ ok: false, text: error.message });
    } finally {
      setRunning(false);
    }
    const list = await loadRuns();
    setShown(list[0]?.id ?? null);
  };

  const run = runs.find((entry) => entry.id === shown);
  useEffect(() => onShown?.(run ?? null), [run?.id]);
  return (
    <section class="card stack" aria-label={t('run.aria')}>
      <h3 class="section-title">{t('run.title')}</h3>
      {!loaded && <p class="muted">{t('run.notLoaded')}</p>}
      <form class="stack" onSubmit={(event) => void execute(event)}>
        <div class="form-grid">
          <label class="field">
            <span class="field-label">{t('run.messageType')}</span>
            <input
              class="input"
              value={messageType}
              placeholder={t('run.none')}
              onInput={(event) => setMessageType(event.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span class="field-label">{t('run.metadata')}</span>
            <textarea
              class="input code-input"
              rows={3}
              aria-label={t('run.metadata')}
              placeholder="city=Oslo"
              value={metadataText}
              onInput={(event) => setMetadataText(event.currentTarget.value)}
            />
            <span class="field-help">{t('run.metadataHelp')}</span>
          </label>
          <label class="field field-wide">
            <span class="field-label">{t('run.data')}</span>
            <textarea
              class="input code-input"
              rows={5}
              aria-label={t('run.data')}
              value={dataText}
              onInput={(event) => setDataText(event.currentTarget.value)}
            />
            <span class="field-help">{t('run.dataHelp')}</span>
          </label>
        </div>
        <div class="toolbar">
          <button type="submit" class="btn btn-primary" disabled={running || !loaded}>
            {running ? t('run.running') : t('run.run')}
          </button>
        </div>
      </form>
      {result && (
        <div
          class={result.ok ? 'run-result' : 'run-result alert alert-error'}
          role={result.ok ? 'status' : 'alert'}
        >
          <div class="run-summary">
            <strong>{result.ok ? t('run.result') : t('run.failed')}</strong>
          </div>
          <pre class="data-block" aria-label={t('run.resultAria')}>
            {result.text}
          </pre>
        </div>
      )}
      <div>
        <div class="run-summary">
          <h3 class="section-title">{t('run.log')}</h3>
          <span class="spacer" />
          {runs.length > 0 && (
            <select
              class="input"
              aria-label={t('run.recent')}
              value={shown ?? ''}
              onChange={(event) => setShown(event.currentTarget.value)}
            >
              {runs.map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {new Date(entry.startTs).toLocaleTimeString()} · {outcomeText(entry.outcome)}
                </option>
              ))}
            </select>
          )}
        </div>
        {!debugMode && (
          <div class="run-summary">
            <p class="muted">{t('run.needsDebug')}</p>
            <button type="button" class="btn" onClick={() => void onEnableDebug()}>
              {t('run.enableDebug')}
            </button>
          </div>
        )}
        {run ? (
          <div aria-label={t('run.nodeLog')}>
            <div class="run-summary">
              <span class={run.outcome === 'success' ? 'badge badge-ok' : 'badge badge-error'}>
                {outcomeText(run.outcome)}
              </span>
              <span class="muted">
                {t(run.logs.length === 1 ? 'run.nodes.one' : 'run.nodes.other', { count: run.logs.length })} ·{' '}
                {run.endTs - run.startTs} ms
                {run.droppedLogs > 0 ? t('run.leftOut', { count: run.droppedLogs }) : ''}
              </span>
            </div>
            {run.error && <p class="node-log-error">{run.error}</p>}
            <ol class="list">
              {run.logs.map((log, index) => (
                <NodeEntry key={`${log.nodeId}-${index}`} log={log} />
              ))}
            </ol>
          </div>
        ) : (
          debugMode && <p class="muted">{t('run.noRuns')}</p>
        )}
      </div>
    </section>
  );
}
