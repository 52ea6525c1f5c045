// Run logs under the paths RuleGo's server uses: GET /logs/runs (newest first, paginated, `chainId`
// filter), GET /logs/runs/{id}, and DELETE /logs/runs (all, or one chain's with `chainId`).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { paginate } from '../../http/pagination.ts';
import { chainFilter, clearAnswer, runListQuery, runParams } from './logs.schema.ts';
import type { LogsService } from './logs.service.ts';

export function registerLogRoutes(app: FastifyInstance, logs: LogsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['logs'];
  api.get('/logs/runs', { schema: { tags, querystring: runListQuery } }, async (request) =>
    paginate(logs.list(request.query.chainId), request.query),
  );
  api.get('/logs/runs/:id', { schema: { tags, params: runParams } }, async (request) =>
    logs.get(request.params.id),
  );
  api.delete(
    '/logs/runs',
    { schema: { tags, querystring: chainFilter, response: { 200: clearAnswer } } },
    async (request) => logs.clear(request.query.chainId),
  );
}
