// What the conversation list does beyond listing: the user's marks (pinned, archived), finding
// conversations by title, and moving a conversation to another agent (its key names the agent, so
// the session, its messages, summaries and search entries take the new key in one transaction).
import { sql } from 'kysely';
import { conflict, notFound } from '../core/errors.ts';
import type { Db } from './database.ts';
import { KeywordIndex } from './search/keyword-index.ts';

export interface SessionMarks {
  pinned?: boolean;
  archived?: boolean;
}

/** Sets a session's pinned and archived marks; false when no session has that key. */
export async function setMarks(db: Db, key: string, marks: SessionMarks): Promise<boolean> {
  const values = {
    ...(marks.pinned === undefined ? {} : { pinned: marks.pinned ? 1 : 0 }),
    ...(marks.archived === undefined ? {} : { archived: marks.archived ? 1 : 0 }),
  };
  if (Object.keys(values).length === 0) {
    const row = await db.selectFrom('sessions').select('key').where('key', '=', key).executeTakeFirst();
    return row !== undefined;
  }
  const result = await db.updateTable('sessions').set(values).where('key', '=', key).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Keys of an agent's sessions (under `keyPrefix` when given) whose title holds `text`, ignoring
 * case; most recently updated first.
 */
export async function findByTitle(
  db: Db,
  query: { agentId: string; keyPrefix?: string; text: string; limit: number },
): Promise<string[]> {
  const postgres = KeywordIndex.dialectOf(db) === 'postgres';
  const needle = query.text.toLowerCase();
  const holds = postgres
    ? sql<boolean>`strpos(lower(${sql.ref('title')}), ${needle}) > 0`
    : sql<boolean>`instr(lower(${sql.ref('title')}), ${needle}) > 0`;
  let base = db.selectFrom('sessions').select('key').where('agent_id', '=', query.agentId).where(holds);
  const prefix = query.keyPrefix;
  if (prefix !== undefined)
    base = base.where(sql<boolean>`substr(${sql.ref('key')}, 1, ${prefix.length}) = ${prefix}`);
  const rows = await base.orderBy('updated_at', 'desc').orderBy('key').limit(query.limit).execute();
  return rows.map((row) => row.key);
}

/**
 * Gives a session a new key and agent: its messages, summaries and search entries follow. 404 when
 * the session is gone, 409 when the new key is taken.
 */
export async function moveSession(db: Db, from: string, to: string, agentId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom('sessions').select('key').where('key', '=', to).executeTakeFirst();
    if (taken) throw conflict(`a conversation "${to}" exists already`);
    const moved = await trx
      .updateTable('sessions')
      .set({ key: to, agent_id: agentId })
      .where('key', '=', from)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) throw notFound(`session "${from}" not found`);
    await trx.updateTable('session_messages').set({ session_key: to }).where('session_key', '=', from).execute();
    await trx
      .updateTable('session_summaries')
      .set({ session_key: to })
      .where('session_key', '=', from)
      .execute();
    await trx
      .updateTable('search_documents')
      .set({ source: to, agent_id: agentId })
      .where('corpus', '=', 'session')
      .where('source', '=', from)
      .execute();
  });
}
