// Stored responses of the OpenAI Responses API (POST /responses with `store`): one row per response,
// scoped to its owner (the api account, or the users), and its input and output items, which
// `item_reference`, `GET /responses/{id}/input_items` and `previous_response_id` read back.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';

export function responses(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('responses')
        .ifNotExists()
        .addColumn('id', type.key, (c) => c.primaryKey())
        .addColumn('owner', type.key, (c) => c.notNull())
        .addColumn('agent_id', type.key, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        /** The whole Response object as JSON, as GET answers it. */
        .addColumn('body', 'text', (c) => c.notNull())
        /** The session the turn ran in (null: a stateless turn, its input items hold the history). */
        .addColumn('session_key', type.key)
        /** The session's last message id once the turn was stored: a later one means a fork. */
        .addColumn('session_end', type.integer)
        .addColumn('created_at', type.integer, (c) => c.notNull())
        .addColumn('updated_at', type.integer, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('responses_by_owner')
        .ifNotExists()
        .on('responses')
        .columns(['owner', 'created_at'])
        .execute();
      await db.schema
        .createTable('response_items')
        .ifNotExists()
        .addColumn('seq', type.id, type.idColumn)
        .addColumn('response_id', type.key, (c) => c.notNull())
        .addColumn('owner', type.key, (c) => c.notNull())
        /** `input` or `output`. */
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('item_id', type.key, (c) => c.notNull())
        .addColumn('item', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('response_items_by_response')
        .ifNotExists()
        .on('response_items')
        .columns(['response_id', 'kind', 'seq'])
        .execute();
      await db.schema
        .createIndex('response_items_by_item')
        .ifNotExists()
        .on('response_items')
        .columns(['owner', 'item_id'])
        .execute();
    },
  };
}
