// A session's title, set by the user (null: the UI derives one from the first message). A build
// between 001 and this migration may have added the column at start, so it is added only if missing.
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './column-types.ts';
import { addColumnIfMissing } from './schema-steps.ts';

export function sessionTitle(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumnIfMissing(db, dialect, 'sessions', 'title', 'text');
    },
  };
}
