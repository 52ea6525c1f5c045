// Stored responses and their items (migration 301-responses), each row scoped to its owner: an api
// account sees only its own. One transaction writes a finished response with all its items.
import type { Generated, Kysely } from 'kysely';
import type { ChatMessage } from '../../model-providers/types.ts';
import type { Db } from '../../storage/database.ts';
import type { OutputItem } from './response-builder.ts';

interface ResponsesTable {
  id: string;
  owner: string;
  agent_id: string;
  status: string;
  body: string;
  session_key: string | null;
  session_end: number | null;
  created_at: number;
  updated_at: number;
}

interface ResponseItemsTable {
  seq: Generated<number>;
  response_id: string;
  owner: string;
  kind: string;
  item_id: string;
  item: string;
}

type ResponsesDb = Kysely<{ responses: ResponsesTable; response_items: ResponseItemsTable }>;

export interface StoredResponse {
  id: string;
  owner: string;
  agentId: string;
  status: string;
  body: Record<string, unknown>;
  sessionKey: string | null;
  sessionEnd: number | null;
}

export interface ResponseRecord {
  id: string;
  owner: string;
  agentId: string;
  status: string;
  body: Record<string, unknown>;
  sessionKey: string | null;
  sessionEnd: number | null;
  createdAt: number;
}

export interface ItemPage {
  items: OutputItem[];
  hasMore: boolean;
}

export class ResponseStore {
  private readonly db: ResponsesDb;

  constructor(
    private readonly database: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.db = database.withTables<{
      responses: ResponsesTable;
      response_items: ResponseItemsTable;
    }>() as unknown as ResponsesDb;
  }

  /** Writes a response (new or finished) and, when given, its items, in one transaction. */
  async save(record: ResponseRecord, items?: { input: OutputItem[]; output: OutputItem[] }): Promise<void> {
    const now = this.now();
    const row = {
      status: record.status,
      body: JSON.stringify(record.body),
      session_key: record.sessionKey,
      session_end: record.sessionEnd,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('responses')
        .values({
          id: record.id,
          owner: record.owner,
          agent_id: record.agentId,
          created_at: record.createdAt,
          ...row,
        })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
        .execute();
      if (!items) return;
      const rows = [
        ...items.input.map((item) => ({ kind: 'input', item })),
        ...items.output.map((item) => ({ kind: 'output', item })),
      ].map(({ kind, item }) => ({
        response_id: record.id,
        owner: record.owner,
        kind,
        item_id: item.id,
        item: JSON.stringify(item),
      }));
      if (rows.length > 0) await trx.insertInto('response_items').values(rows).execute();
    });
  }

  async get(owner: string, id: string): Promise<StoredResponse | undefined> {
    const row = await this.db
      .selectFrom('responses')
      .selectAll()
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      owner: row.owner,
      agentId: row.agent_id,
      status: row.status,
      body: JSON.parse(row.body) as Record<string, unknown>,
      sessionKey: row.session_key,
      sessionEnd: row.session_end,
    };
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('responses')
        .where('id', '=', id)
        .where('owner', '=', owner)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('response_items').where('response_id', '=', id).execute();
      return true;
    });
  }

  /** A response's input or output items, oldest first. */
  async items(responseId: string, kind: 'input' | 'output'): Promise<OutputItem[]> {
    const rows = await this.db
      .selectFrom('response_items')
      .select('item')
      .where('response_id', '=', responseId)
      .where('kind', '=', kind)
      .orderBy('seq')
      .execute();
    return rows.map((row) => JSON.parse(row.item) as OutputItem);
  }

  /** One page of a response's input items, `after` / `before` being item ids of that list. */
  async inputPage(
    responseId: string,
    query: { after?: string | undefined; before?: string | undefined; limit: number; order: 'asc' | 'desc' },
  ): Promise<ItemPage> {
    const all = await this.items(responseId, 'input');
    const ordered = query.order === 'asc' ? all : [...all].reverse();
    let start = 0;
    let end = ordered.length;
    if (query.after !== undefined) start = ordered.findIndex((item) => item.id === query.after) + 1;
    if (query.before !== undefined) {
      const at = ordered.findIndex((item) => item.id === query.before);
      end = at === -1 ? ordered.length : at;
    }
    const slice = start === 0 && query.after !== undefined ? [] : ordered.slice(start, end);
    return { items: slice.slice(0, query.limit), hasMore: slice.length > query.limit };
  }

  /** Items of the owner's stored responses by item id (item_reference); the latest copy of each id. */
  async findItems(owner: string, ids: string[]): Promise<Map<string, OutputItem>> {
    const found = new Map<string, OutputItem>();
    if (ids.length === 0) return found;
    const rows = await this.db
      .selectFrom('response_items')
      .select(['item_id', 'item'])
      .where('owner', '=', owner)
      .where('item_id', 'in', ids)
      .orderBy('seq')
      .execute();
    for (const row of rows) found.set(row.item_id, JSON.parse(row.item) as OutputItem);
    return found;
  }

  /** The id of a session's newest message (0 when it has none). */
  async sessionEnd(sessionKey: string): Promise<number> {
    const row = await this.database
      .selectFrom('session_messages')
      .select((eb) => eb.fn.max('id').as('last'))
      .where('session_key', '=', sessionKey)
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** A session's messages up to (and with) message id `end`, for a fork of the conversation there. */
  async sessionMessagesUpTo(sessionKey: string, end: number): Promise<ChatMessage[]> {
    const rows = await this.database
      .selectFrom('session_messages')
      .select('message')
      .where('session_key', '=', sessionKey)
      .where('id', '<=', end)
      .orderBy('id')
      .execute();
    return rows.map((row) => JSON.parse(row.message) as ChatMessage);
  }
}
