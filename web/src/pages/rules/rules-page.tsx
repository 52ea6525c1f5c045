// Rule chains: the list (filters: agent, loaded only) and the JSON editor of the chosen chain
// (/ui/rules/<id>) or of a new one (/ui/rules/new).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { apiAll } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import { href } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { AgentFilter, useAgentIds } from '../../ui/agent-filter.tsx';
import { Icon } from '../../ui/icons.tsx';
import { StatusListItem } from '../../ui/status-list.tsx';
import '../../styles/manage.css';
import { RuleEditor } from './rule-editor.tsx';
import { chainName, isAgentChain, type ChainView } from './rule-types.ts';

export function RulesPage({ params }: PageProps) {
  const [selected] = params;
  const [chains, setChains] = useState<ChainView[] | null>(null);
  const agents = useAgentIds();
  const [agentFilter, setAgentFilter] = useState('');
  const [loadedOnly, setLoadedOnly] = useState(false);

  const reload = useCallback(async () => {
    try {
      setChains(
        await apiAll<ChainView>('/rules', {
          query: { agentId: agentFilter || undefined, loaded: loadedOnly ? 'true' : undefined },
        }),
      );
    } catch {
      setChains([]);
    }
  }, [agentFilter, loadedOnly]);
  useEffect(() => {
    void reload();
  }, [reload]);

  return (
    <div class={selected ? 'split split-detail' : 'split'}>
      <aside class="split-list" aria-label={t('rules.listAria')}>
        <div class="toolbar">
          <h1 class="page-title">{t('rules.title')}</h1>
          <span class="spacer" />
          <a class="btn btn-primary" href={href('rules', 'new')}>
            <Icon name="plus" /> {t('rules.new')}
          </a>
        </div>
        <div class="filters">
          <AgentFilter
            agents={agents}
            value={agentFilter}
            onChange={setAgentFilter}
            allLabel={t('rules.allChains')}
          />
          <label class="inline-check">
            <input
              type="checkbox"
              checked={loadedOnly}
              onChange={(event) => setLoadedOnly(event.currentTarget.checked)}
            />
            {t('rules.loadedOnly')}
          </label>
        </div>
        {chains === null ? (
          <p class="muted">{t('rules.loading')}</p>
        ) : chains.length === 0 ? (
          <p class="muted">{t('rules.noMatch')}</p>
        ) : (
          <ul class="list" aria-label={t('rules.list')}>
            {chains.map((chain) => {
              const id = chain.ruleChain.id;
              const owner = isAgentChain(chain)
                ? t('rules.ownerAgent')
                : chain.status.agentId
                  ? t('rules.ownerOf', { agent: chain.status.agentId })
                  : '';
              return (
                <StatusListItem
                  key={id}
                  href={href('rules', id)}
                  active={id === selected}
                  data={{ 'data-chain': id }}
                  title={chainName(chain)}
                  sub={`${id}${owner}`}
                  status={chain.status}
                />
              );
            })}
          </ul>
        )}
      </aside>
      <section class="split-detail-pane" aria-label={t('rules.editorAria')}>
        {selected ? (
          <RuleEditor
            key={selected}
            chainId={selected === 'new' ? null : selected}
            agents={agents}
            onChanged={reload}
          />
        ) : (
          <div class="empty-state">
            <p class="muted">{t('rules.choose')}</p>
          </div>
        )}
      </section>
    </div>
  );
}
