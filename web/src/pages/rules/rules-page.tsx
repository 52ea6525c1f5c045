// Rule chains: the list (filters: agent, loaded only) and the JSON editor of the chosen chain
// (/ui/rules/<id>) or of a new one (/ui/rules/new).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { apiAll } from '../../api.ts';
import { href } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { AgentView } from '../../types.ts';
import { Icon } from '../../ui/icons.tsx';
import '../../styles/manage.css';
import { RuleEditor } from './rule-editor.tsx';
import { chainName, isAgentChain, type ChainView } from './rule-types.ts';

export function RulesPage({ params }: PageProps) {
  const [selected] = params;
  const [chains, setChains] = useState<ChainView[] | null>(null);
  const [agents, setAgents] = useState<string[]>([]);
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
  useEffect(() => {
    apiAll<AgentView>('/agents').then(
      (list) => setAgents(list.map((agent) => agent.ruleChain.id)),
      () => undefined,
    );
  }, []);

  return (
    <div class={selected ? 'split split-detail' : 'split'}>
      <aside class="split-list" aria-label="Rule chains">
        <div class="toolbar">
          <h1 class="page-title">Rule chains</h1>
          <span class="spacer" />
          <a class="btn btn-primary" href={href('rules', 'new')}>
            <Icon name="plus" /> New chain
          </a>
        </div>
        <div class="filters">
          <select
            class="input"
            aria-label="Filter by agent"
            value={agentFilter}
            onChange={(event) => setAgentFilter(event.currentTarget.value)}
          >
            <option value="">All chains</option>
            {agents.map((id) => (
              <option key={id} value={id}>
                Agent {id}
              </option>
            ))}
          </select>
          <label class="inline-check">
            <input
              type="checkbox"
              checked={loadedOnly}
              onChange={(event) => setLoadedOnly(event.currentTarget.checked)}
            />
            Loaded only
          </label>
        </div>
        {chains === null ? (
          <p class="muted">Loading…</p>
        ) : chains.length === 0 ? (
          <p class="muted">No rule chains match.</p>
        ) : (
          <ul class="list" aria-label="Rule chain list">
            {chains.map((chain) => {
              const id = chain.ruleChain.id;
              return (
                <li key={id}>
                  <a
                    class={id === selected ? 'list-item active' : 'list-item'}
                    href={href('rules', id)}
                    aria-current={id === selected ? 'page' : undefined}
                    data-chain={id}
                  >
                    <span class="list-item-main">
                      <span class="list-item-title">{chainName(chain)}</span>
                      <span class="muted list-item-sub">
                        {id}
                        {isAgentChain(chain)
                          ? ' · agent'
                          : chain.status.agentId
                            ? ` · of ${chain.status.agentId}`
                            : ''}
                      </span>
                    </span>
                    {chain.status.loaded ? (
                      <span class="badge badge-ok">loaded</span>
                    ) : (
                      <span class="badge badge-error" title={chain.status.error}>
                        load error
                      </span>
                    )}
                  </a>
                </li>
              );
            })}
          </ul>
        )}
      </aside>
      <section class="split-detail-pane" aria-label="Rule chain editor">
        {selected ? (
          <RuleEditor
            key={selected}
            chainId={selected === 'new' ? null : selected}
            agents={agents}
            onChanged={reload}
          />
        ) : (
          <div class="empty-state">
            <p class="muted">Choose a rule chain to edit and run it, or create a new one.</p>
          </div>
        )}
      </section>
    </div>
  );
}
