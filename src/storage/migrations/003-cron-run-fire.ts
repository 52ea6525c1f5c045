// The scheduled time of a cron run (its fire), unique per task: in clustered mode a fire whose
// instance died mid-run is run again elsewhere, and this index records it once. Null (a run started
// by hand, or a row from before) never conflicts.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { addColumnIfMissing, createIndex } from './schema-steps.ts';

export function cronRunFire(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumnIfMissing(db, dialect, 'cron_runs', 'scheduled_at', type.integer);
      await createIndex(db, 'cron_runs_by_fire', 'cron_runs', ['task_id', 'scheduled_at'], { unique: true });
    },
  };
}
