// Search across an agent's conversations: titles (the conversation) and messages (a snippet; opening
// it shows the branch that holds the message, scrolled to it). While the box holds a query the
// results replace the conversation list.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { SessionSearchAnswer as Answer } from '@server/resources/sessions/sessions.schema.ts';
import type { SessionView } from '../../types.ts';
import { relativeTime } from '../../types.ts';
import { Icon } from '../../ui/icons.tsx';
import { sessionTitle } from './session-list.tsx';

export type SearchHit = Answer['results'][number];

interface Props {
  agentId: string;
  /** The conversations listed, to name a hit's conversation. */
  sessions: SessionView[] | null;
  onOpenSession: (session: SessionView) => void;
  onOpenHit: (hit: SearchHit) => void;
  /** The conversation list, shown while there is no query. */
  children: ComponentChildren;
}

const DEBOUNCE_MS = 250;

export function SessionSearch({ agentId, sessions, onOpenSession, onOpenHit, children }: Props) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const trimmed = query.trim();

  useEffect(() => setQuery(''), [agentId]);
  useEffect(() => {
    setAnswer(null);
    if (trimmed === '' || !agentId) return;
    let live = true;
    const timer = window.setTimeout(() => {
      api<Answer>(`/agents/${encodeURIComponent(agentId)}/sessions/search`, {
        query: { q: trimmed, limit: 20 },
        quiet: true,
      }).then(
        (found) => live && setAnswer(found),
        () => live && setAnswer({ sessions: [], results: [] }),
      );
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [agentId, trimmed]);

  const titleOf = (key: string): string => {
    const session = sessions?.find((entry) => entry.key === key);
    return session ? sessionTitle(session) : key.replace(/^.*:scope:[^:]+:/, '');
  };

  return (
    <>
      <div class="session-search" role="search">
        <Icon name="search" />
        <input
          class="input"
          type="search"
          aria-label={t('search.label')}
          placeholder={t('search.placeholder')}
          value={query}
          maxLength={1000}
          onInput={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && query !== '') {
              event.stopPropagation();
              setQuery('');
            }
          }}
        />
      </div>
      {trimmed === '' ? (
        children
      ) : answer === null ? (
        <p class="muted">{t('search.busy')}</p>
      ) : answer.sessions.length === 0 && answer.results.length === 0 ? (
        <p class="muted search-none">{t('search.none', { query: trimmed })}</p>
      ) : (
        <div class="search-results" aria-label={t('search.results')}>
          {answer.sessions.length > 0 && (
            <>
              <h2 class="search-heading">{t('search.titles')}</h2>
              <ul class="session-list">
                {answer.sessions.map((session) => (
                  <li key={session.key} class="session-item search-hit">
                    <button type="button" class="session-link" onClick={() => onOpenSession(session)}>
                      <span class="session-title">{sessionTitle(session)}</span>
                      <span class="session-meta muted">{relativeTime(session.updatedAt)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
          {answer.results.length > 0 && (
            <>
              <h2 class="search-heading">{t('search.messages')}</h2>
              <ul class="session-list">
                {answer.results.map((hit) => (
                  <li key={`${hit.sessionKey}:${hit.messageId}`} class="session-item search-hit">
                    <button type="button" class="session-link" onClick={() => onOpenHit(hit)}>
                      <span class="session-title">{titleOf(hit.sessionKey)}</span>
                      <span class="search-snippet">{hit.snippet}</span>
                      <span class="session-meta muted">{relativeTime(hit.at)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </>
  );
}
