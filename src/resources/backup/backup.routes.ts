// POST /backup: an archive of this server's config file and data root (application/zip), taken while
// it runs: the database through VACUUM INTO, the files while atomic writes are paused. Single mode
// only; clustered, the answer says to use pg_dump. `agent-service backup <file>` calls it.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { ConfigStore } from '../../config/config-store.ts';
import { AppError } from '../../core/errors.ts';
import { clusteredReason, createBackup } from '../../storage/backup.ts';

export function registerBackupRoutes(
  app: FastifyInstance,
  deps: { store: ConfigStore; db: object; version: string },
): void {
  app.post(
    '/backup',
    {
      schema: {
        tags: ['backup'],
        summary: 'A zip archive of the config file and the data root (single mode)',
        body: z.strictObject({}).nullish().describe('no body, or an empty object'),
        response: { 200: z.any().describe('application/zip') },
      },
    },
    async (_request, reply) => {
      const config = deps.store.current;
      const clustered = clusteredReason(config);
      if (clustered) throw new AppError('conflict', clustered);
      const archive = await createBackup({
        configPath: deps.store.path,
        dataRoot: config.data.root_dir,
        logsDir: config.data.logs_dir,
        db: deps.db as Kysely<unknown>,
        version: deps.version,
      });
      const name = `agent-service-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.zip`;
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(Buffer.from(archive));
    },
  );
}
