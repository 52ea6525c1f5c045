import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { RateLimiter } from '../../http/rate-limit.ts';
import type { AuthService } from '../../auth/auth-service.ts';

const loginBody = z.object({ username: z.string().min(1).max(128), password: z.string().min(1).max(1024) });
const passwordBody = z.object({
  oldPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(8, 'must be at least 8 characters').max(1024),
});
const apiKeyResponse = z.object({ apiKey: z.string() });

function username(principal: { kind: string; username?: string } | undefined): string {
  if (principal?.kind !== 'user' || !principal.username)
    throw new AppError('unauthenticated', 'a login token is required');
  return principal.username;
}

export function registerAuthRoutes(
  app: FastifyInstance,
  auth: AuthService,
  loginLimitPerMinute: number,
): void {
  const limiter = new RateLimiter(loginLimitPerMinute, 60_000);
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/v1/auth/login',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        body: loginBody,
        response: { 200: z.object({ token: z.string(), expireAt: z.string() }) },
      },
    },
    async (request, reply) => {
      const wait = limiter.hit(request.ip);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        throw new AppError('rate-limited', `too many login attempts; try again in ${wait} s`);
      }
      return auth.login(request.body.username, request.body.password);
    },
  );

  api.get(
    '/api/v1/auth/api-key',
    { config: { auth: 'jwt' }, schema: { tags: ['auth'], response: { 200: apiKeyResponse } } },
    async (request) => ({ apiKey: await auth.getApiKey(username(request.principal)) }),
  );

  api.post(
    '/api/v1/auth/api-key',
    { config: { auth: 'jwt' }, schema: { tags: ['auth'], response: { 200: apiKeyResponse } } },
    async (request) => ({ apiKey: await auth.regenerateApiKey(username(request.principal)) }),
  );

  api.put(
    '/api/v1/auth/password',
    {
      config: { auth: 'jwt' },
      schema: {
        tags: ['auth'],
        body: passwordBody,
        response: { 200: z.object({ success: z.boolean(), message: z.string() }) },
      },
    },
    async (request) => {
      await auth.changePassword(
        username(request.principal),
        request.body.oldPassword,
        request.body.newPassword,
      );
      return { success: true, message: 'password changed; log in again' };
    },
  );
}
