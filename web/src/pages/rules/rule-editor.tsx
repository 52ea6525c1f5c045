// The editor of one rule chain: the graph (loaded on demand) or its JSON with line numbers, both
// editing one draft; validation errors marked at the node the server names; save, reload, delete
// with confirmation, and the run panel below.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t, tParts } from '../../i18n/index.ts';
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

/** The words of an error's place, for its "Go to" button. */
function placeLabel(place: ErrorPlace): string {
  const { what } = place;
  if (what.kind === 'node') return t('rules.place.node', { id: what.id });
  if (what.kind === 'connection') return t('rules.place.connection', { from: what.from, to: what.to });
  return t('rules.place.line', { line: place.line });
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
    isNew ? t('rules.unsavedNew') : t('rules.unsaved', { id: chainId ?? '' }),
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
        <p>{t('rules.missing', { id: chainId ?? '' })}</p>
      </div>
    );
  if (!isNew && !view) return <p class="muted pad">{t('rules.loading')}</p>;

  const goTo = (place: ErrorPlace) => {
    setReveal({ line: place.line, seq: (reveal?.seq ?? 0) + 1 });
    if (place.what.kind === 'node') setFocus({ nodeId: place.what.id, seq: (focus?.seq ?? 0) + 1 });
  };

  /** Parses the editor's text; a syntax error is marked at its line. */
  const parsed = (): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>;
      setProblem({
        message: t('rules.notObject'),
        place: undefined,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const place = placeOfParseError(text, message);
      setProblem({ message: t('rules.notJson', { message }), place });
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
        toast(t('rules.created', { id: created.ruleChain.id }), 'success');
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
      toast(t('rules.saved'), 'success');
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
      toast(t('rules.reloaded'), 'success');
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        setProblem({
          message: t('rules.fileFailed', { message: error.message }),
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
        title: t('rules.delete.title'),
        message: t('rules.delete.message', { id: chainId }),
        confirmLabel: t('rules.delete.confirm'),
      },
      async () => {
        await api(`/rules/${encodeURIComponent(chainId)}`, { method: 'DELETE' });
        toast(t('rules.deleted', { id: chainId }), 'success');
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
      toast(t('rules.debugOn'), 'success');
    } catch {
      // toasted
    }
  };

  const dirty = isNew || changed;
  const agentChain = view !== null && isAgentChain(view);
  return (
    <div class="editor stack">
      <div class="toolbar">
        <a class="icon-btn back-link" href={href('rules')} aria-label={t('rules.back')}>
          <Icon name="back" />
        </a>
        <h2 class="page-title">{view ? chainName(view) : t('rules.newTitle')}</h2>
        {view && <LoadBadge status={view.status} />}
        {agentChain && <span class="badge">{t('rules.agentBadge')}</span>}
        <span class="spacer" />
        <ViewSwitch mode={mode} onMode={setMode} />
        {isNew && text !== EMPTY_CHAIN_TEXT && (
          <button type="button" class="btn" onClick={() => setText(EMPTY_CHAIN_TEXT)}>
            {t('rules.startEmpty')}
          </button>
        )}
        {!isNew && (
          <>
            <button
              type="button"
              class="btn"
              aria-label={t('rules.reloadAria')}
              onClick={() => void reload()}
            >
              <Icon name="reload" /> <span class="hide-narrow">{t('rules.reload')}</span>
            </button>
            {!agentChain && (
              <button
                type="button"
                class="btn btn-danger"
                aria-label={t('rules.deleteAria')}
                onClick={() => void remove()}
              >
                <Icon name="trash" /> <span class="hide-narrow">{t('rules.delete')}</span>
              </button>
            )}
          </>
        )}
        <button type="button" class="btn btn-primary" disabled={!dirty || busy} onClick={() => void save()}>
          {isNew ? t('rules.create') : t('rules.save')}
        </button>
      </div>
      {agentChain && (
        <p class="muted">
          {tParts('rules.agentChain', {
            id: view.ruleChain.id,
            link: <a href={href('agents', view.ruleChain.id)}>{t('rules.agentsPage')}</a>,
          })}
        </p>
      )}
      {isNew && (
        <label class="field">
          <span class="field-label">{t('rules.belongsTo')}</span>
          <select class="input" value={owner} onChange={(event) => setOwner(event.currentTarget.value)}>
            <option value="">{t('rules.noAgent')}</option>
            {agents.map((id) => (
              <option key={id} value={id}>
                {t('rules.agentOption', { id })}
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
              {t('rules.goTo', { place: placeLabel(problem.place) })}
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
            label={t('rules.json')}
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
