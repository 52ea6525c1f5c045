import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema } from '../../core/ids.ts';
import type { ConfigService } from './config.service.ts';
import type { ModelsService } from './models.service.ts';
import { deleted } from '../../http/answers.ts';

const providerId = idSchema;
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const modelEntry = z.object({ name: z.string().min(1), alias: z.string().optional() });
const nameParams = z.object({ name: providerId });

const providerFields = {
  name: z.string().max(200).optional(),
  base_url: httpUrl,
  api_key: z.string().max(4096).optional(),
  model: z.string().max(200).optional(),
  models: z.array(modelEntry).max(500).optional(),
  failover: z.array(providerId).max(20).optional(),
  timeout_ms: z.int().positive().max(3_600_000).optional(),
};
const providerBody = z.strictObject({ id: providerId, ...providerFields });
const providerPatch = z.strictObject(providerFields).partial();

const configPatch = z.strictObject({
  server: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  models: z.record(z.string(), z.unknown()).optional(),
  security: z.record(z.string(), z.unknown()).optional(),
  engine: z.record(z.string(), z.unknown()).optional(),
  agents: z.record(z.string(), z.unknown()).optional(),
  channels: z.record(z.string(), z.unknown()).optional(),
  bindings: z.array(z.unknown()).optional(),
});

export function registerConfigRoutes(
  app: FastifyInstance,
  config: ConfigService,
  models: ModelsService,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['config'];

  api.get('/api/v1/config', { schema: { tags } }, async () => config.view());
  api.put('/api/v1/config', { schema: { tags, body: configPatch } }, async (request) =>
    config.update(request.body as Record<string, unknown>),
  );

  api.get('/api/v1/config/models', { schema: { tags } }, async () => models.summary());
  api.put(
    '/api/v1/config/models',
    {
      schema: {
        tags,
        body: z.strictObject({
          model: z.string().max(200).optional(),
          api_key: z.string().max(4096).optional(),
          base_url: httpUrl.optional(),
          default: providerId.optional(),
        }),
      },
    },
    async (request) => models.updateDefault(request.body),
  );
  api.get('/api/v1/config/models/providers', { schema: { tags } }, async () => models.list());
  api.post(
    '/api/v1/config/models/providers',
    { schema: { tags, body: providerBody } },
    async (request, reply) => {
      reply.code(201);
      return models.create(request.body);
    },
  );
  api.put(
    '/api/v1/config/models/providers/:name',
    { schema: { tags, params: nameParams, body: providerPatch } },
    async (request) => models.update(request.params.name, request.body),
  );
  api.delete(
    '/api/v1/config/models/providers/:name',
    { schema: { tags, params: nameParams } },
    async (request) => {
      await models.remove(request.params.name);
      return deleted(`model provider "${request.params.name}"`);
    },
  );
  api.put(
    '/api/v1/config/models/providers/:name/api-key',
    { schema: { tags, params: nameParams, body: z.strictObject({ apiKey: z.string().min(1).max(4096) }) } },
    async (request) => models.setApiKey(request.params.name, request.body.apiKey),
  );
  api.post('/api/v1/config/models/reload', { schema: { tags } }, async () => models.reload());
}
