// The scheduled time of a cron run (its fire), unique per task: in clustered mode a fire whose
// instance died mid-run is run again elsewhere, and this index records it once. Null (a run started
// by hand, or a row from before) never conflicts.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, hasColumn, type Dialect } from './column-types.ts';

export function cronRunFire(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (!(await hasColumn(db, dialect, 'cron_runs', 'scheduled_at')))
        await db.schema.alterTable('cron_runs').addColumn('scheduled_at', type.integer).execute();
      await db.schema
        .createIndex('cron_runs_by_fire')
        .ifNotExists()
        .unique()
        .on('cron_runs')
        .columns(['task_id', 'scheduled_at'])
        .execute();
    },
  };
}
