// The first-run wizard: GET /setup (is it needed?), POST /setup/provider and POST /setup/telegram
// (each proven live before it is saved).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  setupProviderAnswer,
  setupProviderBody,
  setupStatus,
  setupTelegramAnswer,
  setupTelegramBody,
} from './setup.schema.ts';
import type { SetupService } from './setup.service.ts';

export function registerSetupRoutes(app: FastifyInstance, setup: SetupService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['setup'];
  api.get('/setup', { schema: { tags, response: { 200: setupStatus } } }, async () => setup.status());
  api.post(
    '/setup/provider',
    { schema: { tags, body: setupProviderBody, response: { 200: setupProviderAnswer } } },
    async (request) => setup.addProvider(request.body),
  );
  api.post(
    '/setup/telegram',
    { schema: { tags, body: setupTelegramBody, response: { 200: setupTelegramAnswer } } },
    async (request) => setup.addTelegram(request.body),
  );
}
