// Conversation branches, pins and archive. A message's parent_id stays null while its session has
// never branched (the active path is then every message, in id order); the first edit, regenerate or
// switch links every message of that session to its parent (0: the first message of a branch) and
// records the session's active leaf. pinned and archived are the user's marks on a conversation.
import type { Kysely, Migration } from 'kysely';
import { columnTypes, type Dialect } from './column-types.ts';
import { addColumnIfMissing } from './schema-steps.ts';

export function sessionBranches(dialect: Dialect): Migration {
  const type = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumnIfMissing(db, dialect, 'session_messages', 'parent_id', type.integer);
      await addColumnIfMissing(db, dialect, 'sessions', 'leaf_id', type.integer);
      await addColumnIfMissing(db, dialect, 'sessions', 'pinned', 'integer', 0);
      await addColumnIfMissing(db, dialect, 'sessions', 'archived', 'integer', 0);
    },
  };
}
