// The schema as it was before versioned migrations. Every step is "if not exists", so a libsql file
// made by the old start-up code passes through this migration unchanged and is then recorded as at 001.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';

export function initial(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sessions')
        .ifNotExists()
        .addColumn('key', type.key, (c) => c.primaryKey())
        .addColumn('agent_id', type.key, (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('created_at', type.integer, (c) => c.notNull())
        .addColumn('updated_at', type.integer, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('session_messages')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .addColumn('session_key', type.key, (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('tokens', type.integer, (c) => c.notNull())
        .addColumn('created_at', type.integer, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('session_messages_by_key')
        .ifNotExists()
        .on('session_messages')
        .columns(['session_key', 'id'])
        .execute();
      await db.schema
        .createIndex('sessions_by_agent')
        .ifNotExists()
        .on('sessions')
        .column('agent_id')
        .execute();
      await db.schema
        .createTable('cron_tasks')
        .ifNotExists()
        .addColumn('id', type.key, (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('schedule', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('target', type.key, (c) => c.notNull())
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', type.integer, (c) => c.notNull())
        .addColumn('updated_at', type.integer, (c) => c.notNull())
        .addColumn('last_run_at', type.integer)
        .addColumn('last_run_ended_at', type.integer)
        .addColumn('last_run_status', 'text')
        .addColumn('last_run_error', 'text')
        .addColumn('last_run_reply', 'text')
        .addColumn('last_run_ms', type.integer)
        .execute();
      await db.schema
        .createIndex('cron_tasks_by_target')
        .ifNotExists()
        .on('cron_tasks')
        .column('target')
        .execute();
      await db.schema
        .createTable('cron_runs')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .addColumn('task_id', type.key, (c) => c.notNull())
        .addColumn('started_at', type.integer, (c) => c.notNull())
        .addColumn('ended_at', type.integer, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reply', 'text')
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('cron_runs_by_task')
        .ifNotExists()
        .on('cron_runs')
        .columns(['task_id', 'id'])
        .execute();
    },
  };
}
