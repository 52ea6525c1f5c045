// Usage accounting (issue 24): one row per model call (attempts that were retried and calls that
// failed included), with the tokens the provider reported or a marked estimate, and its cost.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

export function usage(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('usage_calls')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .$call(required(type.integer, 'at'))
        .$call(required(type.key, 'day', 'agent_id', 'provider', 'model', 'channel', 'account_id', 'user_id'))
        .$call(
          required(
            type.integer,
            'input_tokens',
            'cached_input_tokens',
            'output_tokens',
            'reasoning_tokens',
            'cost_nanos',
            'estimated',
          ),
        )
        .$call(required(type.key, 'status'))
        .$call(required(type.integer, 'duration_ms'))
        .execute();
      await createIndex(db, 'usage_calls_by_time', 'usage_calls', ['at']);
    },
  };
}
