// A session's title, set by the user (null: the UI derives one from the first message). A build
// between 001 and this migration may have added the column at start, so it is added only if missing.
import type { Kysely, Migration } from 'kysely';
import { hasColumn, type Dialect } from './column-types.ts';

export function sessionTitle(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (await hasColumn(db, dialect, 'sessions', 'title')) return;
      await db.schema.alterTable('sessions').addColumn('title', 'text').execute();
    },
  };
}
