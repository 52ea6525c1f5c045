// Which migrations a database has had, against the ones this code knows. A database with a migration
// this code does not know was written by a newer Agent Service: starting on it would misread its
// tables, so the start stops with what to do instead. One with known but pending migrations is an
// older data root: it is upgraded in place, after a copy of the file is taken (database.ts).
import { sql, type Kysely } from 'kysely';

export interface SchemaState {
  /** Names of the migrations applied, in order. */
  applied: string[];
  /** Known migrations not applied yet. */
  pending: string[];
  /** Applied migrations this code does not know (a newer version wrote them). */
  unknown: string[];
}

/** The kysely_migration table's names; empty for a new database. */
async function appliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return []; // no table yet: a new database
  }
}

export async function schemaState(db: Kysely<unknown>, known: string[]): Promise<SchemaState> {
  const applied = await appliedMigrations(db);
  const done = new Set(applied);
  const knownSet = new Set(known);
  return {
    applied,
    pending: known.filter((name) => !done.has(name)),
    unknown: applied.filter((name) => !knownSet.has(name)),
  };
}

export class NewerDataRootError extends Error {
  constructor(where: string, unknown: string[]) {
    super(
      `the database ${where} was written by a newer version of Agent Service (schema migrations this ` +
        `version does not know: ${unknown.join(', ')}); start the newer version again, or restore a backup ` +
        'taken before the upgrade (agent-service restore) onto an empty data root',
    );
    this.name = 'NewerDataRootError';
  }
}
