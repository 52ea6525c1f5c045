// Conversation history per session key. A session keeps at most `maxMessages` messages and
// `maxTokens` estimated tokens; past either, whole turns are dropped from the oldest end.
import type { ChatMessage } from '../model-providers/types.ts';
import { sql, type Selectable } from 'kysely';
import type { Db, SessionsTable } from './database.ts';

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
}

export interface SessionListQuery {
  agentId: string;
  /** Only keys starting with this (an api account sees only its own sessions). */
  keyPrefix?: string;
  channel?: string;
  offset: number;
  limit: number;
}

const PREVIEW_LENGTH = 120;

export interface SessionLimits {
  maxMessages: number;
  maxTokens: number;
}

/** What a model counts an image as, roughly (a detailed 1024px picture): not the data URL's length. */
const IMAGE_TOKENS = 1000;

export function estimateTokens(message: ChatMessage): number {
  const toolText = message.role === 'assistant' ? JSON.stringify(message.toolCalls ?? []) : '';
  const images = message.role === 'user' ? (message.images?.length ?? 0) : 0;
  return Math.ceil(((message.content ?? '').length + toolText.length) / 4) + 4 + images * IMAGE_TOKENS;
}

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly limits: SessionLimits = { maxMessages: 200, maxTokens: 64_000 },
    private readonly now: () => number = Date.now,
  ) {}

  async load(key: string): Promise<ChatMessage[]> {
    const rows = await this.db
      .selectFrom('session_messages')
      .select('message')
      .where('session_key', '=', key)
      .orderBy('id')
      .execute();
    return rows.map((row) => JSON.parse(row.message) as ChatMessage);
  }

  async append(key: string, info: SessionInfo, messages: ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
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
      await trx
        .insertInto('session_messages')
        .values(
          messages.map((message) => ({
            session_key: key,
            message: JSON.stringify(message),
            tokens: estimateTokens(message),
            created_at: now,
          })),
        )
        .execute();
    });
    await this.compact(key);
  }

  /** Drops whole turns (a user message and everything after it up to the next) from the oldest end. */
  private async compact(key: string): Promise<void> {
    const rows = await this.db
      .selectFrom('session_messages')
      .select(['id', 'tokens', 'message'])
      .where('session_key', '=', key)
      .orderBy('id')
      .execute();
    let count = rows.length;
    let tokens = rows.reduce((sum, row) => sum + row.tokens, 0);
    if (count <= this.limits.maxMessages && tokens <= this.limits.maxTokens) return;
    const turnStarts = rows
      .map((row, index) => ({ index, user: (JSON.parse(row.message) as ChatMessage).role === 'user' }))
      .filter((row) => row.user)
      .map((row) => row.index);
    let cut = 0;
    for (const start of [...turnStarts.slice(1), rows.length]) {
      if (count <= this.limits.maxMessages && tokens <= this.limits.maxTokens) break;
      // Never drop the newest turn.
      if (start === rows.length) break;
      for (let i = cut; i < start; i++) {
        count -= 1;
        tokens -= rows[i]?.tokens ?? 0;
      }
      cut = start;
    }
    const firstKept = rows[cut]?.id;
    if (cut > 0 && firstKept !== undefined) {
      await this.db
        .deleteFrom('session_messages')
        .where('session_key', '=', key)
        .where('id', '<', firstKept)
        .execute();
      this.onCompacted?.();
    }
  }

  /** Called after a history was compacted (metrics). */
  onCompacted: (() => void) | undefined;

  /** An agent's sessions, most recently updated first, and how many there are in all. */
  async list(query: SessionListQuery): Promise<{ sessions: SessionSummary[]; total: number }> {
    let base = this.db.selectFrom('sessions').where('agent_id', '=', query.agentId);
    const prefix = query.keyPrefix;
    // substr rather than LIKE: a key may hold % or _, and SQLite's LIKE has no default escape.
    if (prefix !== undefined)
      base = base.where(sql<boolean>`substr(${sql.ref('key')}, 1, ${prefix.length}) = ${prefix}`);
    if (query.channel !== undefined) base = base.where('channel', '=', query.channel);
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const rows = await base
      .selectAll()
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
    const counted = await this.db
      .selectFrom('session_messages')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('session_key', '=', row.key)
      .executeTakeFirst();
    // A conversation starts with the user's message; compaction keeps whole turns, so it still does.
    const opening = await this.db
      .selectFrom('session_messages')
      .select('message')
      .where('session_key', '=', row.key)
      .orderBy('id')
      .limit(3)
      .execute();
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
    };
  }

  async clear(key: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('sessions').where('key', '=', key).executeTakeFirst();
    const messages = await this.db
      .deleteFrom('session_messages')
      .where('session_key', '=', key)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0 || Number(messages.numDeletedRows) > 0;
  }

  async clearAgent(agentId: string): Promise<void> {
    const keys = await this.db.selectFrom('sessions').select('key').where('agent_id', '=', agentId).execute();
    for (const { key } of keys) await this.clear(key);
  }
}
