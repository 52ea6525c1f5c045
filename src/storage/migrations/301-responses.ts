// Stored responses of the OpenAI Responses API (POST /responses with `store`): one row per response,
// scoped to its owner (the api account, or the users), and its input and output items, which
// `item_reference`, `GET /responses/{id}/input_items` and `previous_response_id` read back.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

export function responses(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('responses')
        .ifNotExists()
        .addColumn('id', type.key, (c) => c.primaryKey())
        .$call(required(type.key, 'owner', 'agent_id'))
        /** `body` is the whole Response object as JSON, as GET answers it. */
        .$call(required('text', 'status', 'body'))
        /** The session the turn ran in (null: a stateless turn, its input items hold the history). */
        .addColumn('session_key', type.key)
        /** The session's last message id once the turn was stored: a later one means a fork. */
        .addColumn('session_end', type.integer)
        .$call(required(type.integer, 'created_at', 'updated_at'))
        .execute();
      await createIndex(db, 'responses_by_owner', 'responses', ['owner', 'created_at']);
      await db.schema
        .createTable('response_items')
        .ifNotExists()
        .addColumn('seq', type.id, type.idColumn)
        .$call(required(type.key, 'response_id', 'owner'))
        /** `kind`: `input` or `output`. */
        .$call(required('text', 'kind'))
        .$call(required(type.key, 'item_id'))
        .$call(required('text', 'item'))
        .execute();
      await createIndex(db, 'response_items_by_response', 'response_items', ['response_id', 'kind', 'seq']);
      await createIndex(db, 'response_items_by_item', 'response_items', ['owner', 'item_id']);
    },
  };
}
