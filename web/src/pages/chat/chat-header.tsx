// The conversation's header: its title, the agent that continues it (a switch moves the
// conversation to another agent the user may use), export as Markdown or JSON, compact now, and
// the demo-model badge.
import { useCallback, useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import type { AgentView, SessionView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { Icon } from '../../ui/icons.tsx';
import { useEscape } from '../../ui/use-escape.ts';
import { sessionTitle } from './session-list.tsx';

interface Props {
  agentId: string;
  agents: AgentView[] | null;
  current: SessionView | undefined;
  /** Why the conversation cannot be continued, if it cannot. */
  readOnly: string | null;
  busy: boolean;
  compacting: boolean;
  demo: boolean;
  listOpen: boolean;
  onToggleList: () => void;
  onCompact: () => void;
  onExport: (format: 'md' | 'json') => void;
  onSwitchAgent: (agentId: string) => void;
}

function ExportMenu({ onExport }: { onExport: (format: 'md' | 'json') => void }) {
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  useEscape(open, close);
  const pick = (format: 'md' | 'json') => {
    setOpen(false);
    onExport(format);
  };
  return (
    <div class="menu">
      <button
        type="button"
        class="btn btn-ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <Icon name="download" /> {t('chat.export')}
      </button>
      {open && (
        <div class="menu-list" role="menu">
          <button type="button" role="menuitem" class="menu-item" onClick={() => pick('md')}>
            {t('chat.export.md')}
          </button>
          <button type="button" role="menuitem" class="menu-item" onClick={() => pick('json')}>
            {t('chat.export.json')}
          </button>
        </div>
      )}
    </div>
  );
}

export function ChatHeader(props: Props) {
  const { agentId, agents, current, readOnly, busy } = props;
  const usable = agents?.filter((agent) => agent.status.loaded || agent.ruleChain.id === agentId) ?? [];
  return (
    <header class="chat-header">
      <button
        type="button"
        class="btn btn-ghost conversations-toggle"
        aria-expanded={props.listOpen}
        onClick={props.onToggleList}
      >
        <Icon name="chat" /> {t('chat.conversations')}
      </button>
      <h1 class="chat-title">{current ? sessionTitle(current) : t('chat.new')}</h1>
      {!readOnly && usable.length > 1 && (
        <label class="agent-switch" title={t('chat.switchAgent.hint')}>
          <span class="muted">{t('chat.switchAgent')}</span>
          <select
            class="input"
            aria-label={t('chat.switchAgent')}
            value={agentId}
            disabled={busy}
            onChange={(event) => props.onSwitchAgent(event.currentTarget.value)}
          >
            {usable.map((agent) => (
              <option key={agent.ruleChain.id} value={agent.ruleChain.id}>
                {agentName(agent)}
              </option>
            ))}
          </select>
        </label>
      )}
      {current && <ExportMenu onExport={props.onExport} />}
      {current && (
        <button
          type="button"
          class="btn btn-ghost"
          disabled={busy || props.compacting}
          title={t('chat.compact.hint')}
          onClick={props.onCompact}
        >
          {props.compacting ? t('chat.compacting') : t('chat.compact')}
        </button>
      )}
      {props.demo && (
        <span class="badge badge-warn" title={t('chat.demo.hint')}>
          {t('chat.demo')}
        </span>
      )}
    </header>
  );
}
