// Durable work (issue 26): an inbound channel message or a cron fire is recorded here before it is
// acknowledged or run, claimed by one instance with an expiring lease, and marked done or failed
// when it ends. A row whose lease ran out (its instance died) is claimed again by a live instance.
// The primary key is the platform's message id (or the task and its fire time), so a redelivery is
// recognised by every instance for as long as the row is kept.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

export function durableWork(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('durable_work')
        .ifNotExists()
        .addColumn('id', type.key, (c) => c.primaryKey())
        .$call(required(type.key, 'kind'))
        .$call(required('text', 'payload'))
        .$call(required(type.key, 'status', 'owner'))
        .$call(required(type.integer, 'lease_until', 'attempts', 'created_at', 'updated_at'))
        .execute();
      await createIndex(db, 'durable_work_by_lease', 'durable_work', ['status', 'lease_until']);
    },
  };
}
