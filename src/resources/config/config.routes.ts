// The configuration over REST: GET /config (never a secret) and PUT /config (a deep merge).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { configPatch, configUpdateAnswer } from './config.schema.ts';
import type { ConfigService } from './config.service.ts';

export function registerConfigRoutes(app: FastifyInstance, config: ConfigService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['config'];
  api.get('/config', { schema: { tags } }, async () => config.view());
  api.put(
    '/config',
    { schema: { tags, body: configPatch, response: { 200: configUpdateAnswer } } },
    async (request) => config.update(request.body),
  );
}
