// Agents: the list with each agent's status (loaded, or its load error), and the editor of the
// chosen one (/ui/agents/<id>/<tab>) or of a new one from the template (/ui/agents/new).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { apiAll } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { AgentView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { Icon } from '../../ui/icons.tsx';
import { StatusListItem } from '../../ui/status-list.tsx';
import { AgentEditor } from './agent-editor.tsx';

export function AgentsPage({ params }: PageProps) {
  const [selected, tab] = params;
  const [agents, setAgents] = useState<AgentView[] | null>(null);

  const reload = useCallback(async () => {
    try {
      setAgents(await apiAll<AgentView>('/agents'));
    } catch {
      setAgents([]);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);

  return (
    <div class={selected ? 'split split-detail' : 'split'}>
      <aside class="split-list" aria-label={t('agents.title')}>
        <div class="toolbar">
          <h1 class="page-title">{t('agents.title')}</h1>
          <span class="spacer" />
          <a class="btn btn-primary" href={href('agents', 'new')}>
            <Icon name="plus" /> {t('agents.new')}
          </a>
        </div>
        {agents === null ? (
          <p class="muted">{t('agents.loading')}</p>
        ) : agents.length === 0 ? (
          <p class="muted">{t('agents.empty')}</p>
        ) : (
          <ul class="list" aria-label={t('agents.list')}>
            {agents.map((agent) => (
              <StatusListItem
                key={agent.ruleChain.id}
                href={href('agents', agent.ruleChain.id)}
                active={agent.ruleChain.id === selected}
                data={{ 'data-agent': agent.ruleChain.id }}
                title={agentName(agent)}
                sub={agent.ruleChain.id}
                status={agent.status}
              />
            ))}
          </ul>
        )}
      </aside>
      <section class="split-detail-pane" aria-label={t('agents.editor')}>
        {selected ? (
          <AgentEditor
            key={selected}
            agentId={selected === 'new' ? null : selected}
            tab={tab ?? 'basic'}
            onChanged={reload}
          />
        ) : (
          <div class="empty-state">
            <p class="muted">{t('agents.choose')}</p>
          </div>
        )}
      </section>
    </div>
  );
}
