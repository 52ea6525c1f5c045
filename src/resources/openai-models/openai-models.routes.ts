// GET /models and GET /models/{id}: OpenAI's model list over the loaded agents. The same credentials
// as the chat endpoint open it (users' keys and tokens, api-channel account keys).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { openAIModel, openAIModelList, openAIModelParams } from './openai-models.schema.ts';
import type { OpenAIModelsService } from './openai-models.service.ts';

export function registerOpenAIModelRoutes(app: FastifyInstance, models: OpenAIModelsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['chat'];
  api.get(
    '/models',
    { config: { auth: 'chat' }, schema: { tags, response: { 200: openAIModelList } } },
    async () => models.list(),
  );
  api.get(
    '/models/:modelId',
    { config: { auth: 'chat' }, schema: { tags, params: openAIModelParams, response: { 200: openAIModel } } },
    async (request) => models.get(request.params.modelId),
  );
}
