// GET /version: what runs (package version, Node, mode) and the database schema it runs on, for
// monitoring and for `agent-service status`. /health stays a plain "OK".
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConfigStore } from '../../config/config-store.ts';
import { migrations } from '../../storage/migrations/index.ts';
import { schemaState } from '../../storage/migrations/schema-version.ts';

const versionAnswer = z.object({
  version: z.string(),
  node: z.string(),
  mode: z.enum(['single', 'clustered']),
  database: z.object({
    dialect: z.enum(['sqlite', 'postgres']),
    /** The newest migration applied: the schema version. */
    schema: z.string().nullable(),
    applied: z.number(),
    pending: z.number(),
  }),
});

export function registerVersionRoutes(
  app: FastifyInstance,
  deps: { version: string; db: object; store: ConfigStore },
): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/version',
    {
      schema: {
        tags: ['health'],
        summary: 'Version of the server and of its database schema',
        response: { 200: versionAnswer },
      },
    },
    async () => {
      const config = deps.store.current;
      const dialect: 'sqlite' | 'postgres' = config.data.database_url ? 'postgres' : 'sqlite';
      const state = await schemaState(deps.db as Kysely<unknown>, Object.keys(migrations(dialect)));
      return {
        version: deps.version,
        node: process.versions.node,
        mode: config.cluster.redis_url ? ('clustered' as const) : ('single' as const),
        database: {
          dialect,
          schema: state.applied.at(-1) ?? null,
          applied: state.applied.length,
          pending: state.pending.length,
        },
      };
    },
  );
}
