// The first-run wizard: GET /setup (is it needed?), POST /setup/provider and POST /setup/telegram
// (each proven live before it is saved).
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
import {
  setupProviderAnswer,
  setupProviderBody,
  setupStatus,
  setupTelegramAnswer,
  setupTelegramBody,
} from './setup.schema.ts';
import type { SetupService } from './setup.service.ts';

export function registerSetupRoutes(app: FastifyInstance, setup: SetupService): void {
  const api = jsonRoutes(app, ['setup']);
  api.get('/setup', { answer: setupStatus }, async () => setup.status());
  api.post('/setup/provider', { body: setupProviderBody, answer: setupProviderAnswer }, async (request) =>
    setup.addProvider(request.body),
  );
  api.post('/setup/telegram', { body: setupTelegramBody, answer: setupTelegramAnswer }, async (request) =>
    setup.addTelegram(request.body),
  );
}
