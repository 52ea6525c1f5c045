// A turn's reads and writes of its session in as few database round trips as they allow, for the
// common case of a session that never branched (session-branches.ts); a branched one is read and
// written by the general code in session-store.ts. On PostgreSQL every statement is a round trip
// over the network, and a turn made about twenty of them (README, Benchmarks): now three.
import { sql } from 'kysely';
import type { Db } from './database.ts';
import type { SearchDocument } from './search/keyword-index.ts';
import {
  storedMessage,
  storedSummary,
  type MessageUsage,
  type StoredMessage,
  type StoredSummary,
} from './session-history.ts';

/** The newest summary of a session and the messages after it, oldest first. */
export interface SessionWindow {
  summary: StoredSummary | undefined;
  messages: StoredMessage[];
}

/** How a turn's appended messages ended (SessionStore.append). */
export interface AppendOutcome {
  status?: 'stopped' | 'failed';
  error?: string;
  usage?: MessageUsage;
  /** PostgreSQL: given the session's window as it was before these messages, read in the append's statement. */
  windowBefore?: (window: SessionWindow) => void;
}

interface WindowRow {
  /** 0: a message; 1: the newest summary; 2: the session's leaf (it branched). */
  kind: number;
  id: number;
  text: string | null;
  tokens: number;
  status: string | null;
  error: string | null;
  created_at: number;
  usage: string | null;
  first_id: number | null;
  last_id: number | null;
}

/** The rows of a session's window (WindowRow), without an order: readWindow's query and a part of an append's. */
function windowRows(key: string) {
  const newest = sql`(select max(last_id) from session_summaries where session_key = ${key})`;
  return sql`
    select 0 as kind, m.id, m.message as text, m.tokens, m.status, m.error, m.created_at, m.usage,
           cast(null as bigint) as first_id, cast(null as bigint) as last_id
      from session_messages m
     where m.session_key = ${key} and m.id > coalesce(${newest}, 0)
       and not exists (select 1 from sessions b where b."key" = ${key} and b.leaf_id is not null)
    union all
    select 1, s.id, s.content, s.tokens, null, null, s.created_at, null, s.first_id, s.last_id
      from session_summaries s
     where s.session_key = ${key} and s.last_id = ${newest}
    union all
    select 2, l.leaf_id, null, 0, null, null, 0, null, null, null
      from sessions l
     where l."key" = ${key} and l.leaf_id is not null`;
}

/** The window of windowRows' rows (in kind, id order); undefined for a session that branched. */
function windowOf(key: string, rows: readonly WindowRow[]): SessionWindow | undefined {
  let summary: StoredSummary | undefined;
  const messages: StoredMessage[] = [];
  for (const row of rows) {
    const kind = Number(row.kind);
    if (kind === 2) return undefined;
    if (kind === 0) messages.push(storedMessage({ ...row, message: row.text ?? 'null' }));
    else if (kind === 1)
      // Two summaries ending on one message cannot be stored (addSummary); the newest id wins anyway.
      summary = storedSummary({
        id: Number(row.id),
        session_key: key,
        first_id: Number(row.first_id),
        last_id: Number(row.last_id),
        content: row.text ?? '',
        tokens: Number(row.tokens),
        created_at: Number(row.created_at),
      });
  }
  return { summary, messages };
}

/**
 * The newest summary and the messages after it, in one query; undefined for a session that
 * branched (its active path needs its whole tree). Used on PostgreSQL, where it saves round trips;
 * on the embedded database SessionStore.window's two plain reads cost less than this union.
 */
export async function readWindow(db: Db, key: string): Promise<SessionWindow | undefined> {
  const { rows } = await sql<WindowRow>`${windowRows(key)} order by 1, 2`.execute(db);
  return windowOf(key, rows);
}

/** One message to append, as stored, with the text the session search indexes (none: not indexed). */
export interface MessageRow {
  message: string;
  tokens: number;
  status: string | null;
  error: string | null;
  usage: string | null;
  searchText: string;
}

/** The session search's documents of appended messages (`ids` theirs, in order). */
export function searchDocuments(
  key: string,
  agentId: string,
  rows: MessageRow[],
  ids: number[],
  at: number,
): SearchDocument[] {
  return rows.flatMap(({ searchText: text }, index) => {
    const refId = ids[index];
    return text && refId !== undefined
      ? [{ corpus: 'session' as const, agentId, source: key, startLine: 1, endLine: 1, refId, at, text }]
      : [];
  });
}

/**
 * PostgreSQL: appends messages to a session that never branched in one statement (atomic by
 * itself): the session row created or touched, the messages inserted in order, and their search
 * documents. Returns their ids, or undefined (nothing written) when the session branched.
 *
 * With `withWindow`, the same statement also reads the session's window as it was before these
 * messages (what readWindow read just before the append): the statement's final query sees the
 * database as the statement began, none of its own inserts (PostgreSQL's data-modifying WITH).
 */
export async function appendInOneStatement(
  db: Db,
  key: string,
  info: { agentId: string; channel: string; scope: string },
  rows: MessageRow[],
  now: number,
  withWindow = false,
): Promise<{ ids: number[]; window: SessionWindow | undefined } | undefined> {
  const input = sql.join(
    rows.map(
      (row, index) =>
        sql`(${index + 1}::int, ${row.message}::text, ${row.tokens}::bigint, ${row.status}::text, ${row.error}::text, ${row.usage}::text, ${row.searchText}::text)`,
    ),
  );
  // The appended ids are rows of kind 3, after the window's rows (kinds 0 to 2).
  const result = withWindow
    ? sql`${windowRows(key)}
    union all
    select 3, id, null, 0, null, null, 0, null, null, null from numbered
    order by 1, 2`
    : sql`select 3 as kind, id from numbered order by id`;
  // A branched session's row is left as it is (the update's condition), so nothing follows.
  const { rows: found } = await sql<WindowRow>`
    with session as (
      insert into sessions ("key", agent_id, channel, scope, created_at, updated_at)
      values (${key}, ${info.agentId}, ${info.channel}, ${info.scope}, ${now}, ${now})
      on conflict ("key") do update set updated_at = excluded.updated_at where sessions.leaf_id is null
      returning "key"
    ), input (ord, message, tokens, status, error, usage, search_text) as (
      values ${input}
    ), added as (
      insert into session_messages (session_key, message, tokens, created_at, status, error, usage)
      select ${key}::text, message, tokens, ${now}::bigint, status, error, usage
        from input where exists (select 1 from session) order by ord
      returning id
    ), numbered as (
      select id, row_number() over (order by id) as ord from added
    ), indexed as (
      insert into search_documents (corpus, agent_id, source, start_line, end_line, ref_id, at, text)
      select 'session', ${info.agentId}::text, ${key}::text, 1, 1, numbered.id, ${now}::bigint, input.search_text
        from numbered join input on input.ord = numbered.ord
       where input.search_text <> ''
    )
    ${result}`.execute(db);
  const ids = found.filter((row) => Number(row.kind) === 3).map((row) => Number(row.id));
  if (ids.length === 0) return undefined;
  return { ids, window: withWindow ? windowOf(key, found) : undefined };
}
