// The configuration over REST: GET /config (never a secret), PUT /config (a deep merge) and
// POST /config/reload (re-read the file).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { configPatch, configUpdateAnswer, configViewSchema } from './config.schema.ts';
import type { ConfigService } from './config.service.ts';

export function registerConfigRoutes(app: FastifyInstance, config: ConfigService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['config'];
  api.get('/config', { schema: { tags, response: { 200: configViewSchema } } }, async () => config.view());
  api.put(
    '/config',
    { schema: { tags, body: configPatch, response: { 200: configUpdateAnswer } } },
    async (request) => config.update(request.body),
  );
  api.post(
    '/config/reload',
    {
      schema: {
        tags,
        description: 'Re-reads the config file; a broken file is refused and the running config is kept.',
        response: { 200: configUpdateAnswer },
      },
    },
    async () => config.reload(),
  );
}
