// Auth over REST: POST /auth/login (public), the caller's API key and password (login token only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiKeyAnswer, loginAnswer, loginBody, passwordAnswer, passwordBody } from './auth.schema.ts';
import { LoginRateLimited, type UserAuthService } from './auth.service.ts';

export function registerAuthRoutes(app: FastifyInstance, auth: UserAuthService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['auth'];

  api.post(
    '/auth/login',
    { config: { auth: 'public' }, schema: { tags, body: loginBody, response: { 200: loginAnswer } } },
    async (request, reply) => {
      try {
        return await auth.login(request.ip, request.body);
      } catch (error) {
        if (error instanceof LoginRateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
        throw error;
      }
    },
  );

  api.get(
    '/auth/api-key',
    { config: { auth: 'jwt' }, schema: { tags, response: { 200: apiKeyAnswer } } },
    async (request) => auth.apiKey(request.principal),
  );

  api.post(
    '/auth/api-key',
    { config: { auth: 'jwt' }, schema: { tags, response: { 200: apiKeyAnswer } } },
    async (request) => auth.regenerateApiKey(request.principal),
  );

  api.put(
    '/auth/password',
    { config: { auth: 'jwt' }, schema: { tags, body: passwordBody, response: { 200: passwordAnswer } } },
    async (request) => auth.changePassword(request.principal, request.body),
  );
}
