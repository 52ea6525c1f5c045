// The conversations of the chosen agent: pinned ones first, then the newest; open, rename, pin,
// archive, delete. Archived ones are listed only when "Show archived" is on.
import { t } from '../../i18n/index.ts';
import { href } from '../../router.ts';
import type { SessionView } from '../../types.ts';
import { relativeTime } from '../../types.ts';
import { Icon, IconButton } from '../../ui/icons.tsx';

export function sessionTitle(session: SessionView): string {
  return session.title ?? (session.preview || t('list.untitled'));
}

/** The address of a conversation: its sessionId for the UI's own, else its full key. */
export function sessionHref(agentId: string, session: SessionView): string {
  return href(
    'chat',
    agentId,
    session.channel === 'api' && session.scope === 'per_peer' ? session.sessionId : session.key,
  );
}

export interface SessionActions {
  onRename: (session: SessionView) => void;
  onDelete: (session: SessionView) => void;
  onMark: (session: SessionView, marks: { pinned?: boolean; archived?: boolean }) => void;
}

interface Props extends SessionActions {
  agentId: string;
  sessions: SessionView[];
  currentId: string;
  /** The conversation open but not yet on the server (nothing sent yet). */
  unsaved: boolean;
}

export function SessionList({ agentId, sessions, currentId, unsaved, onRename, onDelete, onMark }: Props) {
  return (
    <ul class="session-list" aria-label={t('chat.conversations')}>
      {unsaved && (
        <li class="session-item active">
          <a class="session-link" href={href('chat', agentId, currentId)} aria-current="page">
            <span class="session-title">{t('chat.new')}</span>
            <span class="session-meta muted">{t('list.notSent')}</span>
          </a>
        </li>
      )}
      {sessions.map((session) => {
        const active = session.sessionId === currentId || session.key === currentId;
        const title = sessionTitle(session);
        const classes = [
          'session-item',
          active && 'active',
          session.pinned && 'pinned',
          session.archived && 'archived',
        ];
        return (
          <li key={session.key} class={classes.filter(Boolean).join(' ')}>
            <a
              class="session-link"
              href={sessionHref(agentId, session)}
              aria-current={active ? 'page' : undefined}
            >
              <span class="session-title">
                {session.pinned && (
                  <span class="session-pin" title={t('list.pinned')}>
                    <Icon name="pin" label={t('list.pinned')} />
                  </span>
                )}
                {title}
              </span>
              <span class="session-meta muted">
                {session.channel !== 'api' && <span class="badge">{session.channel}</span>}
                {session.archived && <span class="badge">{t('list.archived')}</span>}
                {relativeTime(session.updatedAt)} · {t('list.messages', { count: session.messageCount })}
              </span>
            </a>
            <span class="session-actions">
              <IconButton
                icon="pin"
                label={t(session.pinned ? 'list.unpin.label' : 'list.pin.label', { title })}
                title={t(session.pinned ? 'list.unpin' : 'list.pin')}
                pressed={session.pinned}
                onClick={() => onMark(session, { pinned: !session.pinned })}
              />
              <IconButton
                icon="archive"
                label={t(session.archived ? 'list.unarchive.label' : 'list.archive.label', { title })}
                title={t(session.archived ? 'list.unarchive' : 'list.archive')}
                pressed={session.archived}
                onClick={() => onMark(session, { archived: !session.archived })}
              />
              <IconButton
                icon="edit"
                label={t('list.rename.label', { title })}
                title={t('list.rename')}
                onClick={() => onRename(session)}
              />
              <IconButton
                icon="trash"
                label={t('list.delete.label', { title })}
                title={t('list.delete')}
                onClick={() => onDelete(session)}
              />
            </span>
          </li>
        );
      })}
    </ul>
  );
}
