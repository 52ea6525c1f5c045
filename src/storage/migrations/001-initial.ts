// The schema as it was before versioned migrations. Every step is "if not exists", so a libsql file
// made by the old start-up code passes through this migration unchanged and is then recorded as at 001.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { createIndex, required } from './schema-steps.ts';

export function initial(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sessions')
        .ifNotExists()
        .addColumn('key', type.key, (c) => c.primaryKey())
        .$call(required(type.key, 'agent_id'))
        .$call(required('text', 'channel', 'scope'))
        .$call(required(type.integer, 'created_at', 'updated_at'))
        .execute();
      await db.schema
        .createTable('session_messages')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .$call(required(type.key, 'session_key'))
        .$call(required('text', 'message'))
        .$call(required(type.integer, 'tokens', 'created_at'))
        .execute();
      await createIndex(db, 'session_messages_by_key', 'session_messages', ['session_key', 'id']);
      await createIndex(db, 'sessions_by_agent', 'sessions', ['agent_id']);
      await db.schema
        .createTable('cron_tasks')
        .ifNotExists()
        .addColumn('id', type.key, (c) => c.primaryKey())
        .$call(required('text', 'name', 'schedule', 'message'))
        .$call(required(type.key, 'target'))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .$call(required(type.integer, 'created_at', 'updated_at'))
        .addColumn('last_run_at', type.integer)
        .addColumn('last_run_ended_at', type.integer)
        .addColumn('last_run_status', 'text')
        .addColumn('last_run_error', 'text')
        .addColumn('last_run_reply', 'text')
        .addColumn('last_run_ms', type.integer)
        .execute();
      await createIndex(db, 'cron_tasks_by_target', 'cron_tasks', ['target']);
      await db.schema
        .createTable('cron_runs')
        .ifNotExists()
        .addColumn('id', type.id, type.idColumn)
        .$call(required(type.key, 'task_id'))
        .$call(required(type.integer, 'started_at', 'ended_at'))
        .$call(required('text', 'status'))
        .addColumn('reply', 'text')
        .addColumn('error', 'text')
        .execute();
      await createIndex(db, 'cron_runs_by_task', 'cron_runs', ['task_id', 'id']);
    },
  };
}
