// The token usage of a turn, kept with its answer (the last assistant message of the turn) as JSON,
// so the chat's usage footer reads the same after a reload as while the answer streamed.
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './column-types.ts';
import { addColumnIfMissing } from './schema-steps.ts';

export function messageUsage(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumnIfMissing(db, dialect, 'session_messages', 'usage', 'text');
    },
  };
}
