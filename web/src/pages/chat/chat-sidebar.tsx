// The chat page's side column: the agent picker, "New conversation", search across conversations,
// and the conversation list (archived ones on request).
import { t } from '../../i18n/index.ts';
import { href, navigate } from '../../router.ts';
import type { AgentView, SessionView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { Icon } from '../../ui/icons.tsx';
import { SessionList, type SessionActions } from './session-list.tsx';
import { SessionSearch, type SearchHit } from './session-search.tsx';

interface Props {
  agentId: string;
  agents: AgentView[] | null;
  sessions: SessionView[] | null;
  sessionId: string;
  unsaved: boolean;
  showArchived: boolean;
  onShowArchived: (show: boolean) => void;
  onNew: () => void;
  onOpenSession: (session: SessionView) => void;
  onOpenHit: (hit: SearchHit) => void;
  actions: SessionActions;
}

export function ChatSidebar(props: Props) {
  const { agentId, agents, sessions } = props;
  return (
    <aside class="chat-sidebar" aria-label={t('chat.sidebar')}>
      <label class="field">
        <span class="field-label">{t('chat.agent')}</span>
        <select
          class="input"
          aria-label={t('chat.agent')}
          value={agentId}
          onChange={(event) => navigate(href('chat', event.currentTarget.value))}
        >
          {agents?.map((entry) => (
            <option key={entry.ruleChain.id} value={entry.ruleChain.id}>
              {agentName(entry)}
              {entry.ruleChain.name && entry.ruleChain.name !== entry.ruleChain.id
                ? ` (${entry.ruleChain.id})`
                : ''}
              {entry.status.loaded ? '' : t('chat.loadError')}
            </option>
          ))}
        </select>
      </label>
      <button type="button" class="btn btn-block" onClick={props.onNew} disabled={!agentId}>
        <Icon name="plus" /> {t('chat.new')}
      </button>
      <SessionSearch
        agentId={agentId}
        sessions={sessions}
        onOpenSession={props.onOpenSession}
        onOpenHit={props.onOpenHit}
      >
        {sessions === null ? (
          <p class="muted">{t('chat.loadingList')}</p>
        ) : (
          <SessionList
            agentId={agentId}
            sessions={sessions}
            currentId={props.sessionId}
            unsaved={props.unsaved}
            {...props.actions}
          />
        )}
        <label class="check show-archived">
          <input
            type="checkbox"
            checked={props.showArchived}
            onChange={(event) => props.onShowArchived(event.currentTarget.checked)}
          />
          <span>{t('list.showArchived')}</span>
        </label>
      </SessionSearch>
    </aside>
  );
}
