// Conversation history per session key. A session keeps at most `maxMessages` messages and
// `maxTokens` estimated tokens; past either, whole turns are dropped from the oldest end.
import type { ChatMessage } from '../model-providers/types.ts';
import type { Db } from './database.ts';

export interface SessionInfo {
  agentId: string;
  channel: string;
  scope: string;
}

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
    }
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
