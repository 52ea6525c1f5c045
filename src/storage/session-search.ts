// Keyword search over an agent's transcripts (compacted parts included: messages are never
// deleted), limited to the sessions a caller may see.
import type { Db } from './database.ts';
import type { KeywordIndex, SearchScope } from './search/keyword-index.ts';
import type { ChatMessage } from '../model-providers/types.ts';

export interface SessionHit {
  sessionKey: string;
  messageId: number;
  role: string;
  score: number;
  snippet: string;
  /** The message's time, ISO 8601 UTC. */
  at: string;
}

/** Which of an agent's sessions a caller sees: every one, those under some key prefixes, or some exactly. */
export type SessionScope = Pick<SearchScope, 'prefixes' | 'sources'>;

const SNIPPET_CHARS = 500;

/** The part of a long text around the first query term it holds. */
export function snippetAround(text: string, terms: string[]): string {
  if (text.length <= SNIPPET_CHARS) return text;
  const lower = text.toLowerCase();
  const at = Math.min(
    ...terms.map((term) => lower.indexOf(term.toLowerCase())).filter((index) => index >= 0),
    text.length,
  );
  const start = at === text.length ? 0 : Math.max(0, at - SNIPPET_CHARS / 4);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + SNIPPET_CHARS)}${start + SNIPPET_CHARS < text.length ? '…' : ''}`;
}

export class SessionSearch {
  constructor(
    private readonly db: Db,
    private readonly index: KeywordIndex,
  ) {}

  async search(
    agentId: string,
    scope: SessionScope,
    query: string,
    limit: number,
    threshold?: number,
  ): Promise<SessionHit[]> {
    const hits = await this.index.search({ corpus: 'session', agentId, ...scope }, query, {
      limit,
      ...(threshold === undefined ? {} : { threshold }),
    });
    const ids = hits.flatMap((hit) => (hit.refId === null ? [] : [hit.refId]));
    const rows =
      ids.length === 0
        ? []
        : await this.db
            .selectFrom('session_messages')
            .select(['id', 'message'])
            .where('id', 'in', ids)
            .execute();
    const roles = new Map(rows.map((row) => [Number(row.id), (JSON.parse(row.message) as ChatMessage).role]));
    const terms = query.split(/\s+/).filter((term) => term.length > 1);
    return hits.map((hit) => ({
      sessionKey: hit.source,
      messageId: hit.refId ?? 0,
      role: roles.get(hit.refId ?? 0) ?? 'unknown',
      score: hit.score,
      snippet: snippetAround(hit.text, terms),
      at: new Date(hit.at).toISOString(),
    }));
  }
}
