// Runs a chain once with a test message (type, metadata, data) and shows its run log node by node:
// each logged node's relations, the message it received and sent on (data and metadata), its error.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, request } from '../../api.ts';
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
    if (equals <= 0) throw new Error(`metadata line ${index + 1}: write key=value`);
    metadata[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
  }
  return metadata;
}

function MessageBlock({ title, message }: { title: string; message: LoggedMessage }) {
  return (
    <details>
      <summary>
        {title}
        {message.type ? ` · type ${message.type}` : ''}
        {message.truncated ? ' · cut' : ''}
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
      <MessageBlock title="In: data and metadata" message={log.inMsg} />
      {log.outMsgs.map((out, index) => (
        <MessageBlock key={index} title={`Out (${out.relationType}): data and metadata`} message={out.msg} />
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
    <section class="card stack" aria-label="Run the chain">
      <h3 class="section-title">Run with a test message</h3>
      {!loaded && <p class="muted">The chain is not loaded: fix it and save before running it.</p>}
      <form class="stack" onSubmit={(event) => void execute(event)}>
        <div class="form-grid">
          <label class="field">
            <span class="field-label">Message type</span>
            <input
              class="input"
              value={messageType}
              placeholder="(none)"
              onInput={(event) => setMessageType(event.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span class="field-label">Metadata</span>
            <textarea
              class="input code-input"
              rows={3}
              aria-label="Metadata"
              placeholder="city=Oslo"
              value={metadataText}
              onInput={(event) => setMetadataText(event.currentTarget.value)}
            />
            <span class="field-help">key=value per line, or a JSON object.</span>
          </label>
          <label class="field field-wide">
            <span class="field-label">Data</span>
            <textarea
              class="input code-input"
              rows={5}
              aria-label="Data"
              value={dataText}
              onInput={(event) => setDataText(event.currentTarget.value)}
            />
            <span class="field-help">JSON is sent as JSON; anything else as text.</span>
          </label>
        </div>
        <div class="toolbar">
          <button type="submit" class="btn btn-primary" disabled={running || !loaded}>
            {running ? 'Running…' : 'Run'}
          </button>
        </div>
      </form>
      {result && (
        <div
          class={result.ok ? 'run-result' : 'run-result alert alert-error'}
          role={result.ok ? 'status' : 'alert'}
        >
          <div class="run-summary">
            <strong>{result.ok ? 'Result' : 'The run failed'}</strong>
          </div>
          <pre class="data-block" aria-label="Run result">
            {result.text}
          </pre>
        </div>
      )}
      <div>
        <div class="run-summary">
          <h3 class="section-title">Run log</h3>
          <span class="spacer" />
          {runs.length > 0 && (
            <select
              class="input"
              aria-label="Recent runs"
              value={shown ?? ''}
              onChange={(event) => setShown(event.currentTarget.value)}
            >
              {runs.map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {new Date(entry.startTs).toLocaleTimeString()} · {entry.outcome}
                </option>
              ))}
            </select>
          )}
        </div>
        {!debugMode && (
          <div class="run-summary">
            <p class="muted">Run logs need debug mode, which logs what every node received and sent on.</p>
            <button type="button" class="btn" onClick={() => void onEnableDebug()}>
              Turn on debug mode
            </button>
          </div>
        )}
        {run ? (
          <div aria-label="Node log">
            <div class="run-summary">
              <span class={run.outcome === 'success' ? 'badge badge-ok' : 'badge badge-error'}>
                {run.outcome}
              </span>
              <span class="muted">
                {run.logs.length} node{run.logs.length === 1 ? '' : 's'} · {run.endTs - run.startTs} ms
                {run.droppedLogs > 0 ? ` · ${run.droppedLogs} entries left out` : ''}
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
          debugMode && <p class="muted">No runs logged yet.</p>
        )}
      </div>
    </section>
  );
}
