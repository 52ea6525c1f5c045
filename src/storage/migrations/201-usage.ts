// Usage accounting (issue 24): one row per model call (attempts that were retried and calls that
// failed included), with the tokens the provider reported or a marked estimate, and its cost.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';

export function usage(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('usage_calls')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .addColumn('at', type.integer, (column) => column.notNull())
        .addColumn('day', type.key, (column) => column.notNull())
        .addColumn('agent_id', type.key, (column) => column.notNull())
        .addColumn('provider', type.key, (column) => column.notNull())
        .addColumn('model', type.key, (column) => column.notNull())
        .addColumn('channel', type.key, (column) => column.notNull())
        .addColumn('account_id', type.key, (column) => column.notNull())
        .addColumn('user_id', type.key, (column) => column.notNull())
        .addColumn('input_tokens', type.integer, (column) => column.notNull())
        .addColumn('cached_input_tokens', type.integer, (column) => column.notNull())
        .addColumn('output_tokens', type.integer, (column) => column.notNull())
        .addColumn('reasoning_tokens', type.integer, (column) => column.notNull())
        .addColumn('cost_nanos', type.integer, (column) => column.notNull())
        .addColumn('estimated', type.integer, (column) => column.notNull())
        .addColumn('status', type.key, (column) => column.notNull())
        .addColumn('duration_ms', type.integer, (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('usage_calls_by_time')
        .ifNotExists()
        .on('usage_calls')
        .column('at')
        .execute();
    },
  };
}
