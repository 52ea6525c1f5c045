// The chain editor's two views of one draft: the graph (the default) and the JSON text. The choice
// is remembered in this browser. The graph's code (React Flow on preact/compat) is a chunk of its
// own, fetched the first time a graph is shown, so no other page loads it.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import type { ChainGraphProps } from './graph/chain-graph.tsx';

export type EditorView = 'graph' | 'json';
const VIEW_KEY = 'agent-service.rules-view';

export function useEditorView(): [EditorView, (view: EditorView) => void] {
  const [view, setView] = useState<EditorView>(() =>
    localStorage.getItem(VIEW_KEY) === 'json' ? 'json' : 'graph',
  );
  return [
    view,
    (next) => {
      localStorage.setItem(VIEW_KEY, next);
      setView(next);
    },
  ];
}

export function ViewSwitch({ mode, onMode }: { mode: EditorView; onMode: (view: EditorView) => void }) {
  const tab = (view: EditorView, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === view}
      aria-controls="chain-editor-view"
      onClick={() => onMode(view)}
      onKeyDown={(event) => {
        if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
          const next = view === 'graph' ? 'json' : 'graph';
          onMode(next);
          (
            event.currentTarget.parentElement?.querySelector(`[data-view="${next}"]`) as HTMLElement | null
          )?.focus();
        }
      }}
      data-view={view}
      tabIndex={mode === view ? 0 : -1}
    >
      {label}
    </button>
  );
  return (
    <div class="view-switch" role="tablist" aria-label={t('rules.view')}>
      {tab('graph', t('rules.view.graph'))}
      {tab('json', t('rules.view.json'))}
    </div>
  );
}

type GraphComponent = (props: ChainGraphProps) => preact.JSX.Element;
let loading: Promise<GraphComponent> | undefined;

export function GraphView(props: ChainGraphProps) {
  const [Graph, setGraph] = useState<GraphComponent | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    loading ??= import('./graph/chain-graph.tsx').then((module) => module.default);
    loading.then(
      (component) => setGraph(() => component),
      () => {
        loading = undefined;
        setFailed(true);
      },
    );
  }, []);
  if (failed)
    return (
      <p class="alert alert-error" role="alert">
        {t('rules.graphFailed')}
      </p>
    );
  return (
    <div id="chain-editor-view" role="tabpanel">
      {Graph ? <Graph {...props} /> : <p class="muted">{t('rules.graphLoading')}</p>}
    </div>
  );
}
