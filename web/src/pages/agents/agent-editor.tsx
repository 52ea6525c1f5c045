// The editor of one agent: tabs for its basics, model, prompt, tools, skills, workspace files and memory.
// Basics, model, prompt and tools change the definition, saved with one PUT; skills and files are
// saved by their own endpoints as they change.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href, navigate } from '../../router.ts';
import { useUnsavedChanges } from '../../ui/unsaved.ts';
import type { AgentDefinition, AgentView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { confirmDelete } from '../../ui/confirm.tsx';
import { Icon } from '../../ui/icons.tsx';
import { LoadBadge } from '../../ui/status-list.tsx';
import { toast } from '../../ui/toast.tsx';
import { agentConfig } from './agent-definition.ts';
import { BasicTab, ModelTab, PromptTab } from './definition-tabs.tsx';
import { SkillsTab } from './skills-tab.tsx';
import { ToolsTab } from './tools-tab.tsx';
import { WorkspaceTab } from './workspace-tab.tsx';
import { MemoryTab } from './memory-tab.tsx';
import { agentProblem, type AgentProblem } from './agent-errors.ts';
import { FormError } from '../../ui/dialog.tsx';

const TABS = [
  { id: 'basic', label: 'agents.tab.basic' },
  { id: 'model', label: 'agents.tab.model' },
  { id: 'prompt', label: 'agents.tab.prompt' },
  { id: 'tools', label: 'agents.tab.tools' },
  { id: 'skills', label: 'agents.tab.skills' },
  { id: 'workspace', label: 'agents.tab.workspace' },
  { id: 'memory', label: 'agents.tab.memory' },
] as const;

interface Props {
  /** null: a new agent, from the template. */
  agentId: string | null;
  tab: string;
  onChanged: () => Promise<void>;
}

function stripStatus(view: AgentView): AgentDefinition {
  const { status: _status, ...definition } = view;
  return definition;
}

export function AgentEditor({ agentId, tab, onChanged }: Props) {
  const [view, setView] = useState<AgentView | null>(null);
  const [draft, setDraft] = useState<AgentDefinition | null>(null);
  const [missing, setMissing] = useState(false);
  const [saving, setSaving] = useState(false);
  // Why the last save was refused: at its field (on its tab), or above the tabs.
  const [refused, setRefused] = useState<AgentProblem | null>(null);
  const isNew = agentId === null;
  const current = TABS.find((entry) => entry.id === tab) ?? TABS[0];
  const tabs = isNew
    ? TABS.filter((entry) => entry.id !== 'skills' && entry.id !== 'workspace' && entry.id !== 'memory')
    : TABS;

  const [template, setTemplate] = useState<AgentDefinition | null>(null);
  const dirty =
    draft !== null && JSON.stringify(isNew ? template : view && stripStatus(view)) !== JSON.stringify(draft);
  useUnsavedChanges(
    dirty && !saving,
    isNew ? t('agents.unsaved.new') : t('agents.unsaved.agent', { id: agentId }),
    href('agents', agentId ?? 'new'),
  );

  useEffect(() => {
    if (isNew) {
      api<AgentDefinition>('/agent-template').then(
        (loaded) => {
          setTemplate(loaded);
          setDraft(loaded);
        },
        () => undefined,
      );
      return;
    }
    api<AgentView>(`/agents/${encodeURIComponent(agentId)}`, { quiet: true }).then(
      (loaded) => {
        setView(loaded);
        setDraft(stripStatus(loaded));
      },
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 404) setMissing(true);
        else if (error instanceof ApiError && error.status !== 401) toast(error.message, 'error');
      },
    );
  }, [agentId]);

  if (missing)
    return (
      <div class="empty-state">
        <p>There is no agent "{agentId}".</p>
      </div>
    );
  if (!draft) return <p class="muted pad">{t('agents.loading')}</p>;

  const tabHref = (id: string) => href('agents', agentId ?? 'new', id);
  const edit = (next: AgentDefinition) => {
    setDraft(next);
    setRefused(null);
  };
  const errorOf = (field: string) => (refused?.field === field ? refused.problem : undefined);

  const save = async () => {
    setSaving(true);
    setRefused(null);
    try {
      if (isNew) {
        const created = await api<AgentView>('/agents', { method: 'POST', body: draft, quiet: true });
        toast(t('agents.created', { id: created.ruleChain.id }), 'success');
        await onChanged();
        navigate(href('agents', created.ruleChain.id), { replace: true });
        return;
      }
      const saved = await api<AgentView>(`/agents/${encodeURIComponent(agentId)}`, {
        method: 'PUT',
        body: draft,
        quiet: true,
      });
      setView(saved);
      setDraft(stripStatus(saved));
      toast(
        saved.status.loaded ? t('agents.saved') : t('agents.savedNotLoaded'),
        saved.status.loaded ? 'success' : 'error',
      );
      await onChanged();
    } catch (error) {
      // Shown where the user looks: under the field it names, on that field's tab.
      const problem = agentProblem(error);
      setRefused(problem);
      if (problem.tab && problem.tab !== current.id) navigate(tabHref(problem.tab), { replace: true });
    } finally {
      setSaving(false);
    }
  };

  const reload = async () => {
    if (isNew) return;
    try {
      const loaded = await api<AgentView>(`/agents/${encodeURIComponent(agentId)}/reload`, {
        method: 'POST',
      });
      setView(loaded);
      setDraft(stripStatus(loaded));
      toast(
        loaded.status.loaded ? t('agents.reloaded') : t('agents.reloadedNotLoaded'),
        loaded.status.loaded ? 'success' : 'error',
      );
    } catch {
      // toasted
    }
    await onChanged();
  };

  const remove = async () => {
    if (isNew) return;
    await confirmDelete(
      {
        title: t('agents.delete.title'),
        message: t('agents.delete.message', { id: agentId }),
        confirmLabel: t('agents.delete.title'),
      },
      async () => {
        await api(`/agents/${encodeURIComponent(agentId)}`, { method: 'DELETE' });
        toast(t('agents.deleted', { id: agentId }), 'success');
        await onChanged();
        navigate(href('agents'), { replace: true });
      },
    );
  };

  const config = agentConfig(draft);
  return (
    <div class="editor">
      <div class="toolbar">
        <a class="icon-btn back-link" href={href('agents')} aria-label={t('agents.back')}>
          <Icon name="back" />
        </a>
        <h2 class="page-title">{isNew ? t('agents.new') : agentName(draft)}</h2>
        {view && <LoadBadge status={view.status} />}
        <span class="spacer" />
        {!isNew && (
          <>
            <a class="btn btn-ghost" href={href('chat', agentId)} aria-label={t('agents.chatWith')}>
              <Icon name="chat" /> <span class="hide-narrow">{t('agents.chat')}</span>
            </a>
            <button
              type="button"
              class="btn"
              aria-label={t('agents.reloadAria')}
              onClick={() => void reload()}
            >
              <Icon name="reload" /> <span class="hide-narrow">{t('agents.reload')}</span>
            </button>
            {/* The default agent answers whatever no binding routes elsewhere: it cannot be deleted. */}
            {agentId !== 'main' && (
              <button
                type="button"
                class="btn btn-danger"
                aria-label={t('agents.delete.title')}
                onClick={() => void remove()}
              >
                <Icon name="trash" /> <span class="hide-narrow">{t('agents.delete')}</span>
              </button>
            )}
          </>
        )}
        <button
          type="button"
          class="btn btn-primary"
          disabled={(!dirty && !isNew) || saving}
          onClick={() => void save()}
        >
          {isNew ? t('agents.create') : t('agents.save')}
        </button>
      </div>
      {view?.status.error && (
        <div class="alert alert-error" role="alert">
          <strong>{t('agents.notLoaded')}</strong>
          <pre class="alert-detail">{view.status.error}</pre>
        </div>
      )}
      {refused && !refused.field && <FormError error={refused.problem} />}
      <nav class="tabs" aria-label={t('agents.sections')}>
        {tabs.map((entry) => (
          <a
            key={entry.id}
            class={entry.id === current.id ? 'tab active' : 'tab'}
            href={tabHref(entry.id)}
            aria-current={entry.id === current.id ? 'page' : undefined}
          >
            {t(entry.label)}
          </a>
        ))}
      </nav>
      <div class="tab-panel">
        {!config &&
        current.id !== 'basic' &&
        current.id !== 'skills' &&
        current.id !== 'workspace' &&
        current.id !== 'memory' ? (
          <p class="muted">{t('agents.noAiNode')}</p>
        ) : current.id === 'basic' ? (
          <BasicTab definition={draft} isNew={isNew} onChange={edit} errorOf={errorOf} />
        ) : current.id === 'model' ? (
          <ModelTab definition={draft} onChange={edit} errorOf={errorOf} />
        ) : current.id === 'prompt' ? (
          <PromptTab definition={draft} onChange={edit} errorOf={errorOf} />
        ) : current.id === 'tools' ? (
          <ToolsTab
            definition={draft}
            onChange={edit}
            problems={view?.status.problems}
            error={errorOf('tools')}
          />
        ) : current.id === 'skills' && agentId ? (
          <SkillsTab agentId={agentId} />
        ) : current.id === 'workspace' && agentId ? (
          <WorkspaceTab agentId={agentId} />
        ) : current.id === 'memory' && agentId ? (
          <MemoryTab agentId={agentId} />
        ) : null}
      </div>
    </div>
  );
}
