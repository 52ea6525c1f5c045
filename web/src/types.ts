// Shapes of the API answers the pages share.
import type { ChainDefinition, ChainView } from '@server/chains/chain-view.ts';
import { lang, t } from './i18n/index.ts';

export type { ChainStatus } from '@server/chains/chain-view.ts';
export type { Page } from '@server/http/pagination.ts';
export type { SessionView } from '@server/resources/sessions/sessions.schema.ts';

/** An agent's definition as the editor changes it: the server's view without its status. */
export type AgentDefinition = ChainDefinition;
export type AgentView = ChainView;

export function agentName(agent: AgentDefinition): string {
  return typeof agent.ruleChain.name === 'string' && agent.ruleChain.name
    ? agent.ruleChain.name
    : agent.ruleChain.id;
}

/** "3 min ago", "yesterday", or a date. */
export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 60) return t('time.justNow');
  if (seconds < 3600) return t('time.minutes', { count: Math.floor(seconds / 60) });
  if (seconds < 86_400) return t('time.hours', { count: Math.floor(seconds / 3600) });
  if (seconds < 172_800) return t('time.yesterday');
  return new Date(then).toLocaleDateString(lang.get() === 'zh' ? 'zh-CN' : undefined);
}
