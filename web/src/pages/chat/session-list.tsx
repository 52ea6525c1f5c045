// The conversations of the chosen agent, newest first: open, rename, delete.
import { href } from '../../router.ts';
import type { SessionView } from '../../types.ts';
import { relativeTime } from '../../types.ts';
import { IconButton } from '../../ui/icons.tsx';

export function sessionTitle(session: SessionView): string {
  return session.title ?? (session.preview || 'Untitled conversation');
}

interface Props {
  agentId: string;
  sessions: SessionView[];
  currentId: string;
  /** The conversation open but not yet on the server (nothing sent yet). */
  unsaved: boolean;
  onRename: (session: SessionView) => void;
  onDelete: (session: SessionView) => void;
}

export function SessionList({ agentId, sessions, currentId, unsaved, onRename, onDelete }: Props) {
  return (
    <ul class="session-list" aria-label="Conversations">
      {unsaved && (
        <li class="session-item active">
          <a class="session-link" href={href('chat', agentId, currentId)} aria-current="page">
            <span class="session-title">New conversation</span>
            <span class="session-meta muted">not sent yet</span>
          </a>
        </li>
      )}
      {sessions.map((session) => {
        const active = session.sessionId === currentId || session.key === currentId;
        return (
          <li key={session.key} class={active ? 'session-item active' : 'session-item'}>
            <a
              class="session-link"
              href={href(
                'chat',
                agentId,
                session.channel === 'api' && session.scope === 'per_peer' ? session.sessionId : session.key,
              )}
              aria-current={active ? 'page' : undefined}
            >
              <span class="session-title">{sessionTitle(session)}</span>
              <span class="session-meta muted">
                {session.channel !== 'api' && <span class="badge">{session.channel}</span>}
                {relativeTime(session.updatedAt)} · {session.messageCount} messages
              </span>
            </a>
            <span class="session-actions">
              <IconButton
                icon="edit"
                label={`Rename ${sessionTitle(session)}`}
                title="Rename"
                onClick={() => onRename(session)}
              />
              <IconButton
                icon="trash"
                label={`Delete ${sessionTitle(session)}`}
                title="Delete"
                onClick={() => onDelete(session)}
              />
            </span>
          </li>
        );
      })}
    </ul>
  );
}
