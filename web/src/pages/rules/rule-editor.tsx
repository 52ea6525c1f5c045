// The editor of one rule chain: the graph (loaded on demand) or its JSON with line numbers, both
// editing one draft; validation errors marked at the node the server names; save, reload, delete
// with confirmation, and the run panel below.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { href, navigate } from '../../router.ts';
import { useUnsavedChanges } from '../../ui/unsaved.ts';
import { CodeEditor } from '../../ui/code-editor.tsx';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Icon } from '../../ui/icons.tsx';
import { LoadBadge } from '../../ui/status-list.tsx';
import { toast } from '../../ui/toast.tsx';
import { placeOfParseError, placeOfServerError, type ErrorPlace } from './chain-errors.ts';
import { RunPanel } from './run-panel.tsx';
import {
  chainName,
  definitionText,
  EMPTY_CHAIN_TEXT,
  isAgentChain,
  NEW_CHAIN_TEXT,
  type ChainView,
  type RunLog,
} from './rule-types.ts';
import { GraphView, useEditorView, ViewSwitch } from './view-switch.tsx';

interface Props {
  /** null: a new chain. */
  chainId: string | null;
  agents: string[];
  onChanged: () => Promise<void>;
}

interface Problem {
  message: string;
  place: ErrorPlace | undefined;
}

export function RuleEditor({ chainId, agents, onChanged }: Props) {
  const isNew = chainId === null;
  const [view, setView] = useState<ChainView | null>(null);
  const [text, setText] = useState(isNew ? NEW_CHAIN_TEXT : '');
  const [owner, setOwner] = useState('');
  const [missing, setMissing] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [reveal, setReveal] = useState<{ line: number; seq: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useEditorView();
  const [runLog, setRunLog] = useState<RunLog | null>(null);
  const [focus, setFocus] = useState<{ nodeId: string; seq: number } | null>(null);

  const show = (chain: ChainView) => {
    setView(chain);
    setText(definitionText(chain));
  };

  useEffect(() => {
    if (isNew) return;
    api<ChainView>(`/rules/${encodeURIComponent(chainId)}`, { quiet: true }).then(show, (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) setMissing(true);
      else if (error instanceof ApiError && error.status !== 401) toast(error.message, 'error');
    });
  }, [chainId]);

  const changed = isNew ? text !== NEW_CHAIN_TEXT : view !== null && definitionText(view) !== text;
  useUnsavedChanges(
    changed && !busy,
    isNew ? 'the new rule chain' : `rule chain "${chainId}"`,
    href('rules', chainId ?? 'new'),
  );

  // A stored load error (a file broken by hand) is shown at its node once the text is there.
  useEffect(() => {
    if (view?.status.error && text)
      setProblem({ message: view.status.error, place: placeOfServerError(text, view.status.error) });
  }, [view]);

  if (missing)
    return (
      <div class="empty-state">
        <p>There is no rule chain "{chainId}".</p>
      </div>
    );
  if (!isNew && !view) return <p class="muted pad">Loading…</p>;

  const goTo = (place: ErrorPlace) => {
    setReveal({ line: place.line, seq: (reveal?.seq ?? 0) + 1 });
    const nodeId = /^node "(.+)"$/.exec(place.label)?.[1];
    if (nodeId) setFocus({ nodeId, seq: (focus?.seq ?? 0) + 1 });
  };

  /** Parses the editor's text; a syntax error is marked at its line. */
  const parsed = (): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>;
      setProblem({
        message: 'The chain must be a JSON object: {"ruleChain": {...}, "metadata": {...}}',
        place: undefined,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const place = placeOfParseError(text, message);
      setProblem({ message: `Not valid JSON: ${message}`, place });
      if (place) goTo(place);
    }
    return undefined;
  };

  const save = async () => {
    const body = parsed();
    if (!body) return;
    setBusy(true);
    try {
      if (isNew) {
        const path = owner ? `/agents/${encodeURIComponent(owner)}/rules` : '/rules';
        const created = await api<ChainView>(path, { method: 'POST', body, quiet: true });
        toast(`Rule chain "${created.ruleChain.id}" created`, 'success');
        await onChanged();
        navigate(href('rules', created.ruleChain.id), { replace: true });
        return;
      }
      const saved = await api<ChainView>(`/rules/${encodeURIComponent(chainId)}`, {
        method: 'PUT',
        body,
        quiet: true,
      });
      show(saved);
      setProblem(null);
      toast('Saved', 'success');
      await onChanged();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 401) return;
      if (error.status !== 400) {
        toast(error.message, 'error');
        return;
      }
      // The server names the node (or connection) of a validation error: mark it in the text.
      const place = placeOfServerError(text, error.message);
      setProblem({ message: error.message, place });
      if (place) goTo(place);
    } finally {
      setBusy(false);
    }
  };

  const reload = async () => {
    if (isNew) return;
    try {
      const loaded = await api<ChainView>(`/rules/${encodeURIComponent(chainId)}/reload`, {
        method: 'POST',
        quiet: true,
      });
      show(loaded);
      setProblem(null);
      toast('Reloaded from its file', 'success');
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        setProblem({
          message: `The file did not load: ${error.message}`,
          place: placeOfServerError(text, error.message),
        });
      } else if (error instanceof ApiError && error.status !== 401) toast(error.message, 'error');
    }
    await onChanged();
  };

  const remove = async () => {
    if (isNew) return;
    await confirmDelete(
      {
        title: 'Delete rule chain',
        message: `Delete the rule chain "${chainId}"? Its file is removed and agents using it as a tool lose it.`,
        confirmLabel: 'Delete chain',
      },
      async () => {
        await api(`/rules/${encodeURIComponent(chainId)}`, { method: 'DELETE' });
        toast(`Rule chain "${chainId}" deleted`, 'success');
        await onChanged();
        navigate(href('rules'), { replace: true });
      },
    );
  };

  /** Turns on debug mode (every node logged) in the text and saves. */
  const enableDebug = async () => {
    const body = parsed();
    if (!body) return;
    const ruleChain = (body['ruleChain'] ?? {}) as Record<string, unknown>;
    const next = JSON.stringify({ ...body, ruleChain: { ...ruleChain, debugMode: true } }, null, 2);
    setText(next);
    try {
      const saved = await api<ChainView>(`/rules/${encodeURIComponent(chainId ?? '')}`, {
        method: 'PUT',
        body: JSON.parse(next) as unknown,
      });
      show(saved);
      toast('Debug mode on: runs are logged node by node', 'success');
    } catch {
      // toasted
    }
  };

  const dirty = isNew || changed;
  const agentChain = view !== null && isAgentChain(view);
  return (
    <div class="editor stack">
      <div class="toolbar">
        <a class="icon-btn back-link" href={href('rules')} aria-label="Back to the rule chain list">
          <Icon name="back" />
        </a>
        <h2 class="page-title">{view ? chainName(view) : 'New rule chain'}</h2>
        {view && <LoadBadge status={view.status} />}
        {agentChain && <span class="badge">agent</span>}
        <span class="spacer" />
        <ViewSwitch mode={mode} onMode={setMode} />
        {isNew && text !== EMPTY_CHAIN_TEXT && (
          <button type="button" class="btn" onClick={() => setText(EMPTY_CHAIN_TEXT)}>
            Start empty
          </button>
        )}
        {!isNew && (
          <>
            <button type="button" class="btn" aria-label="Reload chain" onClick={() => void reload()}>
              <Icon name="reload" /> <span class="hide-narrow">Reload</span>
            </button>
            {!agentChain && (
              <button
                type="button"
                class="btn btn-danger"
                aria-label="Delete chain"
                onClick={() => void remove()}
              >
                <Icon name="trash" /> <span class="hide-narrow">Delete</span>
              </button>
            )}
          </>
        )}
        <button type="button" class="btn btn-primary" disabled={!dirty || busy} onClick={() => void save()}>
          {isNew ? 'Create' : 'Save'}
        </button>
      </div>
      {agentChain && (
        <p class="muted">
          This is the chain of agent "{view.ruleChain.id}": its basics are easier to edit on the{' '}
          <a href={href('agents', view.ruleChain.id)}>Agents page</a>, where it is also deleted.
        </p>
      )}
      {isNew && (
        <label class="field">
          <span class="field-label">Belongs to</span>
          <select class="input" value={owner} onChange={(event) => setOwner(event.currentTarget.value)}>
            <option value="">No agent (a global chain)</option>
            {agents.map((id) => (
              <option key={id} value={id}>
                Agent {id}
              </option>
            ))}
          </select>
        </label>
      )}
      {problem && (
        <div class="alert alert-error node-error" role="alert">
          <pre class="alert-detail">{problem.message}</pre>
          {problem.place && (
            <button type="button" class="btn" onClick={() => problem.place && goTo(problem.place)}>
              Go to {problem.place.label}
            </button>
          )}
        </div>
      )}
      {mode === 'graph' ? (
        <GraphView
          text={text}
          onText={setText}
          isNew={isNew}
          chainId={isNew ? null : chainId}
          problem={problem?.message ?? null}
          runLog={runLog}
          focus={focus}
        />
      ) : (
        <div id="chain-editor-view" role="tabpanel">
          <CodeEditor
            label="Rule chain JSON"
            value={text}
            onInput={(value) => setText(value)}
            marked={problem?.place?.range ?? null}
            reveal={reveal}
          />
        </div>
      )}
      {!isNew && view && (
        <RunPanel
          chainId={view.ruleChain.id}
          debugMode={view.ruleChain.debugMode === true}
          loaded={view.status.loaded}
          onEnableDebug={enableDebug}
          onShown={setRunLog}
        />
      )}
    </div>
  );
}
