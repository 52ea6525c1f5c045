// Conversation history per session key. Nothing is ever deleted but by the user: a long session is
// compacted into summary entries (each records the message range it folds) while its messages stay,
// searchable. Without compaction, the model is given at most `maxMessages` messages and `maxTokens`
// estimated tokens of it, whole turns from the newest back (the rest stays stored).
import type { ChatMessage } from '../model-providers/types.ts';
import { sql, type Selectable } from 'kysely';
import type { Db, SessionsTable } from './database.ts';
import { KeywordIndex } from './search/keyword-index.ts';
import { checkout, onActivePath, treeOf, type SessionTree } from './session-branches.ts';
import { findByTitle, moveSession, setMarks, type SessionMarks } from './session-catalog.ts';
import {
  appendInOneStatement,
  readWindow,
  searchDocuments,
  type AppendOutcome,
  type SessionWindow,
} from './session-round-trips.ts';
import {
  fitLimits,
  forModel,
  searchableText,
  storedMessage,
  storedSummary,
  summaryMessage,
  type StoredMessage,
  type SessionLimits,
  type StoredSummary,
} from './session-history.ts';

export type { MessageUsage, StoredMessage, StoredSummary } from './session-history.ts';
export type { AppendOutcome, SessionWindow } from './session-round-trips.ts';
export type { SessionTree } from './session-branches.ts';

export interface SessionInfo {
  agentId: string;
  channel: string;
  scope: string;
}

/** One stored conversation as the session list shows it. */
export interface SessionSummary {
  key: string;
  agentId: string;
  channel: string;
  scope: string;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** The start of the first user message, for a session without a title. */
  preview: string;
  pinned: boolean;
  archived: boolean;
}

export interface SessionListQuery {
  agentId: string;
  /** Only keys starting with this (an api account sees only its own sessions). */
  keyPrefix?: string;
  channel?: string;
  /** Archived sessions: left out (the default), the only ones, or listed with the others. */
  archived?: 'exclude' | 'only' | 'include';
  offset: number;
  limit: number;
}

const PREVIEW_LENGTH = 120;

export type { SessionLimits } from './session-history.ts';

/** What a model counts an image as, roughly (a detailed 1024px picture): not the data URL's length. */
const IMAGE_TOKENS = 1000;

export function estimateTokens(message: ChatMessage): number {
  const toolText = message.role === 'assistant' ? JSON.stringify(message.toolCalls ?? []) : '';
  const images = message.role === 'user' ? (message.images?.length ?? 0) : 0;
  return Math.ceil(((message.content ?? '').length + toolText.length) / 4) + 4 + images * IMAGE_TOKENS;
}

export class SessionStore {
  private readonly postgres: boolean;

  constructor(
    private readonly db: Db,
    private readonly limits: SessionLimits = { maxMessages: 200, maxTokens: 64_000 },
    private readonly now: () => number = Date.now,
    private readonly index: KeywordIndex = new KeywordIndex(db, KeywordIndex.dialectOf(db)),
  ) {
    this.postgres = KeywordIndex.dialectOf(db) === 'postgres';
  }

  async load(key: string): Promise<ChatMessage[]> {
    const rows = await this.db
      .selectFrom('session_messages')
      .select('message')
      .where('session_key', '=', key)
      .orderBy('id')
      .execute();
    return rows.map((row) => JSON.parse(row.message) as ChatMessage);
  }

  /**
   * The stored messages of a session's active branch after `afterId`, oldest first (folded ones
   * included: nothing is deleted). Other branches' messages stay stored; see session-branches.ts.
   */
  async entries(key: string, afterId = 0, tree?: SessionTree): Promise<StoredMessage[]> {
    const branches = tree ?? (await treeOf(this.db, key));
    const rows = await this.db
      .selectFrom('session_messages')
      .select(['id', 'message', 'tokens', 'status', 'error', 'created_at', 'usage'])
      .where('session_key', '=', key)
      .where('id', '>', afterId)
      .orderBy('id')
      .execute();
    return onActivePath(rows, branches, (row) => row.id).map(storedMessage);
  }

  /**
   * Appends messages (with a status for the answer of a turn that did not finish, and the turn's
   * usage kept with its last message) and indexes them for session search in the same
   * transaction. Returns their ids.
   */
  async append(
    key: string,
    info: SessionInfo,
    messages: ChatMessage[],
    outcome: AppendOutcome = {},
  ): Promise<number[]> {
    if (messages.length === 0) return [];
    const now = this.now();
    const rows = messages.map((message, index) => ({
      message: JSON.stringify(message),
      tokens: estimateTokens(message),
      status: outcome.status ?? null,
      error: outcome.error ?? null,
      usage: outcome.usage && index === messages.length - 1 ? JSON.stringify(outcome.usage) : null,
      searchText: searchableText(message),
    }));
    // PostgreSQL: one round trip instead of six (session-round-trips.ts); a branched session goes on.
    const appended = this.postgres
      ? await appendInOneStatement(this.db, key, info, rows, now, outcome.windowBefore !== undefined)
      : undefined;
    if (appended) {
      this.index.wrote();
      if (appended.window) outcome.windowBefore?.(appended.window);
      return appended.ids;
    }
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('sessions')
        .values({
          key,
          agent_id: info.agentId,
          channel: info.channel,
          scope: info.scope,
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({ updated_at: now }))
        .execute();
      const values = rows.map(({ searchText: _text, ...row }) => ({
        ...row,
        session_key: key,
        created_at: now,
      }));
      const session = await trx
        .selectFrom('sessions')
        .select('leaf_id')
        .where('key', '=', key)
        .executeTakeFirst();
      const ids: number[] = [];
      if (session?.leaf_id === null || session?.leaf_id === undefined) {
        const inserted = await trx.insertInto('session_messages').values(values).returning('id').execute();
        ids.push(...inserted.map((row) => Number(row.id)));
      } else {
        // A branched session: each message follows the one before it, from the active leaf on.
        let parent = Number(session.leaf_id);
        for (const row of values) {
          const inserted = await trx
            .insertInto('session_messages')
            .values({ ...row, parent_id: parent })
            .returning('id')
            .executeTakeFirstOrThrow();
          parent = Number(inserted.id);
          ids.push(parent);
        }
        await trx.updateTable('sessions').set({ leaf_id: parent }).where('key', '=', key).execute();
      }
      await this.index.insert(searchDocuments(key, info.agentId, rows, ids, now), trx);
      return ids;
    });
  }

  /**
   * The newest summary of the session's active branch and its messages after it, oldest first: one
   * query for a session that never branched (session-round-trips.ts).
   */
  async window(key: string): Promise<SessionWindow> {
    // One query saves PostgreSQL round trips; on the embedded database two plain reads are cheaper.
    const read = this.postgres ? await readWindow(this.db, key) : undefined;
    if (read) return read;
    const tree = await treeOf(this.db, key);
    const summary = await this.latestSummary(key, this.db, tree);
    return { summary, messages: await this.entries(key, summary?.lastId ?? 0, tree) };
  }

  /**
   * The newest summary entry of a session's active branch, if it was ever compacted: of a branched
   * session, the newest one whose folded range ends on the active path (that range's messages are
   * then all on it, since a branch shares every message before its first).
   */
  async latestSummary(key: string, db: Db = this.db, tree?: SessionTree): Promise<StoredSummary | undefined> {
    const branches = tree ?? (await treeOf(db, key));
    if (branches) return (await this.summaries(key, branches, db)).at(-1);
    const row = await db
      .selectFrom('session_summaries')
      .selectAll()
      .where('session_key', '=', key)
      .orderBy('last_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? storedSummary(row) : undefined;
  }

  /** Every summary entry of a session's active branch, oldest first. */
  async summaries(key: string, tree?: SessionTree, db: Db = this.db): Promise<StoredSummary[]> {
    const branches = tree ?? (await treeOf(db, key));
    const rows = await db
      .selectFrom('session_summaries')
      .selectAll()
      .where('session_key', '=', key)
      .orderBy('last_id')
      .execute();
    return onActivePath(rows, branches, (row) => row.last_id).map(storedSummary);
  }

  /**
   * Records a summary folding messages up to `lastId`, if the session's newest summary is still
   * `previousLastId` (0: none): one insert, so a crash leaves the session before or after it, and a
   * compaction that lost a race is refused (false) rather than stacked.
   */
  async addSummary(
    key: string,
    summary: { firstId: number; lastId: number; content: string; previousLastId: number },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const latest = await this.latestSummary(key, trx);
      if ((latest?.lastId ?? 0) !== summary.previousLastId) return false;
      await trx
        .insertInto('session_summaries')
        .values({
          session_key: key,
          first_id: summary.firstId,
          last_id: summary.lastId,
          content: summary.content,
          tokens: estimateTokens({ role: 'system', content: summary.content }),
          created_at: this.now(),
        })
        .execute();
      return true;
    });
  }

  /**
   * What the model is given of a session without compaction: the newest summary, then the messages
   * after it (stopped and failed answers marked), cut from the oldest whole turn to the session's
   * limits for this request only: the stored messages are never deleted.
   */
  async history(key: string, beforeId?: number): Promise<ChatMessage[]> {
    const tree = await treeOf(this.db, key);
    const summary = await this.latestSummary(key, this.db, tree);
    // Only the newest maxMessages can be given, so only they are read (of a branched session, the
    // active path's). Messages from `beforeId` on belong to the running turn and are left out.
    const messages = tree
      ? (await this.entries(key, summary?.lastId ?? 0, tree))
          .filter((entry) => beforeId === undefined || entry.id < beforeId)
          .slice(-this.limits.maxMessages)
      : (
          await this.db
            .selectFrom('session_messages')
            .select(['id', 'message', 'tokens', 'status', 'error', 'created_at'])
            .where('session_key', '=', key)
            .where('id', '>', summary?.lastId ?? 0)
            .$if(beforeId !== undefined, (query) => query.where('id', '<', beforeId ?? 0))
            .orderBy('id', 'desc')
            .limit(this.limits.maxMessages)
            .execute()
        )
          .reverse()
          .map(storedMessage);
    // A window that starts inside a turn starts at its next turn instead.
    const start =
      messages.length === this.limits.maxMessages
        ? messages.findIndex((entry) => entry.message.role === 'user')
        : 0;
    const whole = start > 0 ? messages.slice(start) : messages;
    return [...(summary ? [summaryMessage(summary)] : []), ...fitLimits(whole, this.limits).map(forModel)];
  }

  /** One stored message of a session with the message it follows (0: none), or undefined. */
  async message(key: string, id: number): Promise<(StoredMessage & { parentId: number }) | undefined> {
    const row = await this.db
      .selectFrom('session_messages')
      .select(['id', 'message', 'tokens', 'status', 'error', 'created_at', 'parent_id'])
      .where('session_key', '=', key)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    let parentId = row.parent_id === null ? undefined : Number(row.parent_id);
    if (parentId === undefined) {
      // Never branched: it follows the message stored before it.
      const before = await this.db
        .selectFrom('session_messages')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('session_key', '=', key)
        .where('id', '<', id)
        .executeTakeFirst();
      parentId = Number(before?.id ?? 0);
    }
    return { ...storedMessage(row), parentId };
  }

  /** Makes a message (0: none) the session's active leaf: see session-branches.ts. */
  async checkout(key: string, leaf: number): Promise<void> {
    await checkout(this.db, key, leaf);
  }

  /** The session's message tree, or undefined while it never branched. */
  tree(key: string): Promise<SessionTree | undefined> {
    return treeOf(this.db, key);
  }

  /** An agent's sessions, pinned first, then most recently updated, and how many there are in all. */
  async list(query: SessionListQuery): Promise<{ sessions: SessionSummary[]; total: number }> {
    let base = this.db.selectFrom('sessions').where('agent_id', '=', query.agentId);
    const prefix = query.keyPrefix;
    // substr rather than LIKE: a key may hold % or _, and SQLite's LIKE has no default escape.
    if (prefix !== undefined)
      base = base.where(sql<boolean>`substr(${sql.ref('key')}, 1, ${prefix.length}) = ${prefix}`);
    if (query.channel !== undefined) base = base.where('channel', '=', query.channel);
    const archived = query.archived ?? 'exclude';
    if (archived !== 'include') base = base.where('archived', '=', archived === 'only' ? 1 : 0);
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const rows = await base
      .selectAll()
      .orderBy('pinned', 'desc')
      .orderBy('updated_at', 'desc')
      .orderBy('key')
      .offset(query.offset)
      .limit(query.limit)
      .execute();
    const sessions = await Promise.all(rows.map((row) => this.summary(row)));
    return { sessions, total: Number(counted?.total ?? 0) };
  }

  /** One session's summary, or undefined when no session has that key. */
  async get(key: string): Promise<SessionSummary | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('key', '=', key).executeTakeFirst();
    return row ? this.summary(row) : undefined;
  }

  /** Pins or archives a session (see session-catalog.ts); false when no session has that key. */
  setMarks(key: string, marks: SessionMarks): Promise<boolean> {
    return setMarks(this.db, key, marks);
  }

  /** Keys of an agent's sessions whose title holds a text. */
  findByTitle(query: {
    agentId: string;
    keyPrefix?: string;
    text: string;
    limit: number;
  }): Promise<string[]> {
    return findByTitle(this.db, query);
  }

  /** Gives a session a new key (another agent's): 409 when it is taken. */
  move(from: string, to: string, agentId: string): Promise<void> {
    return moveSession(this.db, from, to, agentId);
  }

  /** Sets (or with null removes) a session's title; false when no session has that key. */
  async setTitle(key: string, title: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('sessions')
      .set({ title })
      .where('key', '=', key)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private async summary(row: Selectable<SessionsTable>): Promise<SessionSummary> {
    // What a person would count as messages: tool results are part of the answer, not messages.
    const role =
      KeywordIndex.dialectOf(this.db) === 'postgres'
        ? sql<string>`(message::jsonb ->> 'role')`
        : sql<string>`json_extract(message, '$.role')`;
    const counted = await this.db
      .selectFrom('session_messages')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('session_key', '=', row.key)
      .where(role, '!=', 'tool')
      .executeTakeFirst();
    // A conversation starts with the user's message (of a branched one, its active branch's).
    const path = row.leaf_id === null ? undefined : (await treeOf(this.db, row.key))?.path.slice(0, 3);
    let openingQuery = this.db
      .selectFrom('session_messages')
      .select('message')
      .where('session_key', '=', row.key);
    if (path) openingQuery = openingQuery.where('id', 'in', path.length > 0 ? path : [0]);
    const opening = await openingQuery.orderBy('id').limit(3).execute();
    const first = opening
      .map((message) => JSON.parse(message.message) as ChatMessage)
      .find((message) => message.role === 'user');
    return {
      key: row.key,
      agentId: row.agent_id,
      channel: row.channel,
      scope: row.scope,
      title: row.title ?? null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      messageCount: Number(counted?.count ?? 0),
      preview: (first?.content ?? '').replace(/\s+/g, ' ').trim().slice(0, PREVIEW_LENGTH),
      pinned: Number(row.pinned) === 1,
      archived: Number(row.archived) === 1,
    };
  }

  async clear(key: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('sessions').where('key', '=', key).executeTakeFirst();
    const messages = await this.db
      .deleteFrom('session_messages')
      .where('session_key', '=', key)
      .executeTakeFirst();
    await this.db.deleteFrom('session_summaries').where('session_key', '=', key).execute();
    await this.db
      .deleteFrom('search_documents')
      .where('corpus', '=', 'session')
      .where('source', '=', key)
      .execute();
    return Number(deleted.numDeletedRows) > 0 || Number(messages.numDeletedRows) > 0;
  }

  async clearAgent(agentId: string): Promise<void> {
    const keys = await this.db.selectFrom('sessions').select('key').where('agent_id', '=', agentId).execute();
    for (const { key } of keys) await this.clear(key);
  }
}
