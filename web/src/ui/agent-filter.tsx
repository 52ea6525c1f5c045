// The agents' ids for the list pages' filters and pickers, and their "Filter by agent" select.
import { useEffect, useState } from 'preact/hooks';
import { apiAll } from '../api.ts';
import { t } from '../i18n/index.ts';
import type { AgentView } from '../types.ts';

/** The ids of every agent, loaded once ([] until they arrive, and when they cannot be read). */
export function useAgentIds(): string[] {
  const [agents, setAgents] = useState<string[]>([]);
  useEffect(() => {
    apiAll<AgentView>('/agents').then(
      (list) => setAgents(list.map((agent) => agent.ruleChain.id)),
      () => undefined,
    );
  }, []);
  return agents;
}

export function AgentFilter({
  agents,
  value,
  onChange,
  allLabel,
  class: className = 'input',
}: {
  agents: string[];
  value: string;
  onChange: (agentId: string) => void;
  /** The entry that filters nothing ("All agents"). */
  allLabel: string;
  class?: string;
}) {
  return (
    <select
      class={className}
      aria-label={t('ui.filterByAgent')}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    >
      <option value="">{allLabel}</option>
      {agents.map((id) => (
        <option key={id} value={id}>
          {t('ui.agentOption', { id })}
        </option>
      ))}
    </select>
  );
}
