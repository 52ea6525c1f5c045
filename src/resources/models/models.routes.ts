// Model providers over REST, under /config/models: the default provider's summary, and the
// providers themselves (list, create, change, delete, set the key, reload the file).
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
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
  const api = jsonRoutes(app, ['config']);
  const base = '/config/models';

  api.get(base, { answer: modelsSummary }, async () => models.summary());
  api.put(base, { body: defaultProviderBody, answer: modelsSummary }, async (request) =>
    models.updateDefault(request.body),
  );
  api.get(`${base}/providers`, { answer: providerView.array() }, async () => models.list());
  api.post(`${base}/providers`, { body: providerBody, created: providerView }, async (request) =>
    models.create(request.body),
  );
  api.put(
    `${base}/providers/:name`,
    { params: providerParams, body: providerPatch, answer: providerView },
    async (request) => models.update(request.params.name, request.body),
  );
  api.removal(
    `${base}/providers/:name`,
    providerParams,
    ({ name }) => models.remove(name),
    ({ name }) => `model provider "${name}"`,
  );
  api.put(
    `${base}/providers/:name/api-key`,
    { params: providerParams, body: apiKeyBody, answer: providerView },
    async (request) => models.setApiKey(request.params.name, request.body.apiKey),
  );
  api.post(
    `${base}/providers/:name/test`,
    {
      params: providerParams,
      description:
        'Sends one tiny request to the provider and answers {ok, latencyMs, model, error}; the key is never shown.',
      answer: connectionTestAnswer,
    },
    async (request) => models.testConnection(request.params.name),
  );
  api.post(`${base}/reload`, { answer: modelsSummary }, async () => models.reload());
}
