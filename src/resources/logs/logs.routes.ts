// Run logs of chains with `debugMode` nodes (engine/run-log.ts), under the paths RuleGo's server uses:
// GET /logs/runs (newest first, paginated, `chainId` filter), GET /logs/runs/{id}, and
// DELETE /logs/runs (all, or one chain's with `chainId`).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import type { RunLogStore } from '../../engine/run-log.ts';
import { paginate, paginationQuery } from '../../http/pagination.ts';
import { idParam } from '../../http/params.ts';

const chainFilter = z.object({ chainId: idParam.optional() });

export function registerLogRoutes(app: FastifyInstance, runLogs: RunLogStore): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['logs'];
  api.get(
    '/api/v1/logs/runs',
    { schema: { tags, querystring: paginationQuery.extend(chainFilter.shape) } },
    async (request) => paginate(runLogs.list(request.query.chainId), request.query),
  );
  api.get(
    '/api/v1/logs/runs/:id',
    { schema: { tags, params: z.object({ id: idParam }) } },
    async (request) => {
      const run = runLogs.get(request.params.id);
      if (!run) throw notFound(`run log "${request.params.id}" not found`);
      return run;
    },
  );
  api.delete('/api/v1/logs/runs', { schema: { tags, querystring: chainFilter } }, async (request) => ({
    deleted: runLogs.clear(request.query.chainId),
  }));
}
