// Conversation branches, pins and archive. A message's parent_id stays null while its session has
// never branched (the active path is then every message, in id order); the first edit, regenerate or
// switch links every message of that session to its parent (0: the first message of a branch) and
// records the session's active leaf. pinned and archived are the user's marks on a conversation.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, hasColumn, type Dialect } from './column-types.ts';

export function sessionBranches(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (!(await hasColumn(db, dialect, 'session_messages', 'parent_id')))
        await db.schema.alterTable('session_messages').addColumn('parent_id', type.integer).execute();
      if (!(await hasColumn(db, dialect, 'sessions', 'leaf_id')))
        await db.schema.alterTable('sessions').addColumn('leaf_id', type.integer).execute();
      if (!(await hasColumn(db, dialect, 'sessions', 'pinned')))
        await db.schema
          .alterTable('sessions')
          .addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      if (!(await hasColumn(db, dialect, 'sessions', 'archived')))
        await db.schema
          .alterTable('sessions')
          .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
    },
  };
}
