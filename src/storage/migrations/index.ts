// Versioned migrations, run at start by kysely's Migrator under a lock, so instances starting at
// once migrate once. The list is in code (not a folder scan) so the bundled build carries it.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { initial } from './001-initial.ts';
import { sessionTitle } from './002-session-title.ts';
import { cronRunFire } from './003-cron-run-fire.ts';
import { memory } from './101-memory.ts';
import { usage } from './201-usage.ts';
import { responses } from './301-responses.ts';
import { channelPairings } from './501-channel-pairings.ts';
import { messageUsage } from './601-message-usage.ts';
import { sessionBranches } from './602-session-branches.ts';
import { durableWork } from './750-durable-work.ts';
import { memoryEmbeddings } from './801-memory-embeddings.ts';
import type { Dialect } from './column-types.ts';
import { NewerDataRootError, schemaState, type SchemaState } from './schema-version.ts';

export type { Dialect } from './column-types.ts';

/** Applied in name order; a name, once released, never changes meaning. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '001-initial': initial(dialect),
    '002-session-title': sessionTitle(dialect),
    '003-cron-run-fire': cronRunFire(dialect),
    '101-memory': memory(dialect),
    '201-usage': usage(dialect),
    '301-responses': responses(dialect),
    '501-channel-pairings': channelPairings(dialect),
    '601-message-usage': messageUsage(dialect),
    // Numbered after every released one (501 was the last): a data root that already has the later
    // ones applied would otherwise refuse to migrate (test/storage/migrations.test.ts).
    '602-session-branches': sessionBranches(dialect),
    '750-durable-work': durableWork(dialect),
    '801-memory-embeddings': memoryEmbeddings(dialect),
  };
}

function provider(list: Record<string, Migration>): MigrationProvider {
  return { getMigrations: () => Promise.resolve(list) };
}

/**
 * Applies every pending migration (of `list`: tests pass their own) and returns the names applied. On Postgres the Migrator holds a
 * transaction-level advisory lock (pg_advisory_xact_lock) while it works; on libsql the database
 * opens a write transaction first (see database.ts), which serializes processes sharing the file.
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: Dialect,
  list: Record<string, Migration> = migrations(dialect),
  upgrade: { where?: string; beforeUpgrade?: (state: SchemaState) => Promise<void> } = {},
): Promise<string[]> {
  // A migration this code does not know: a newer version wrote this database; refuse to touch it.
  const state = await schemaState(db, Object.keys(list));
  if (state.unknown.length > 0) throw new NewerDataRootError(upgrade.where ?? '', state.unknown);
  if (state.applied.length > 0 && state.pending.length > 0) await upgrade.beforeUpgrade?.(state);
  // Kysely looks for its own tables in every schema on Postgres: name ours, the first on the path.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  if (dialect === 'postgres' && !schema) throw new Error('the database has no schema on its search_path');
  const migrator = new Migrator({
    db,
    provider: provider(list),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `migration ${failed} failed: ${reason}` : `migrations failed: ${reason}`, {
      cause: error,
    });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
