// Model providers over REST, under /config/models: the default provider's summary, and the
// providers themselves (list, create, change, delete, set the key, reload the file).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import {
  apiKeyBody,
  connectionTestAnswer,
  defaultProviderBody,
  modelsSummary,
  providerBody,
  providerParams,
  providerPatch,
  providerView,
} from './models.schema.ts';
import type { ModelsService } from './models.service.ts';

export function registerModelRoutes(app: FastifyInstance, models: ModelsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['config'];
  const base = '/config/models';

  api.get(base, { schema: { tags, response: { 200: modelsSummary } } }, async () => models.summary());
  api.put(
    base,
    { schema: { tags, body: defaultProviderBody, response: { 200: modelsSummary } } },
    async (request) => models.updateDefault(request.body),
  );
  api.get(`${base}/providers`, { schema: { tags, response: { 200: providerView.array() } } }, async () =>
    models.list(),
  );
  api.post(
    `${base}/providers`,
    { schema: { tags, body: providerBody, response: { 201: providerView } } },
    async (request, reply) => {
      reply.code(201);
      return models.create(request.body);
    },
  );
  api.put(
    `${base}/providers/:name`,
    { schema: { tags, params: providerParams, body: providerPatch, response: { 200: providerView } } },
    async (request) => models.update(request.params.name, request.body),
  );
  api.delete(
    `${base}/providers/:name`,
    { schema: { tags, params: providerParams, response: { 200: successAnswer } } },
    async (request) => {
      await models.remove(request.params.name);
      return deleted(`model provider "${request.params.name}"`);
    },
  );
  api.put(
    `${base}/providers/:name/api-key`,
    { schema: { tags, params: providerParams, body: apiKeyBody, response: { 200: providerView } } },
    async (request) => models.setApiKey(request.params.name, request.body.apiKey),
  );
  api.post(
    `${base}/providers/:name/test`,
    {
      schema: {
        tags,
        params: providerParams,
        description:
          'Sends one tiny request to the provider and answers {ok, latencyMs, model, error}; the key is never shown.',
        response: { 200: connectionTestAnswer },
      },
    },
    async (request) => models.testConnection(request.params.name),
  );
  api.post(`${base}/reload`, { schema: { tags, response: { 200: modelsSummary } } }, async () =>
    models.reload(),
  );
}
