// POST /sessions/clear: forget one conversation of an agent.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { clearAnswer, clearBody } from './sessions.schema.ts';
import type { SessionsService } from './sessions.service.ts';

export function registerSessionRoutes(app: FastifyInstance, sessions: SessionsService): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/sessions/clear',
      { schema: { tags: ['sessions'], body: clearBody, response: { 200: clearAnswer } } },
      async (request) => sessions.clear(request.body),
    );
}
