// The http endpoints of chains, under /api/v1/endpoints/<from.path>: RuleGo's router and request
// mapping (the body is the message data, path and query parameters its metadata, the method and
// path too) and, with to.wait (the default here), the run's result as the answer. Behind the
// server's auth unless the endpoint's configuration says `auth: false`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, unauthenticated } from '../core/errors.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { newMessage } from '../engine/message.ts';
import type { EndpointManager } from './endpoint-manager.ts';
import { applyInProcessors, headersFromMetadata } from './processors.ts';

export const ENDPOINTS_PREFIX = '/api/v1/endpoints';

async function checkAuth(
  request: FastifyRequest,
  auth: AuthService,
  requireAuth: () => boolean,
): Promise<void> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const principal = match?.[1] ? await auth.resolveBearer(match[1]) : undefined;
  if (principal?.kind === 'user') return;
  if (!requireAuth()) return;
  throw unauthenticated(
    match ? 'invalid or expired credentials' : 'missing Authorization: Bearer <token or API key>',
  );
}

export async function registerEndpointRoutes(
  app: FastifyInstance,
  endpoints: EndpointManager,
  auth: AuthService,
  requireAuth: () => boolean,
): Promise<void> {
  await app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/*',
        // Each endpoint decides: checked below unless it opted out.
        config: { auth: 'public' },
        schema: {
          tags: ['endpoints'],
          hide: false,
          description: "A chain's own http endpoint (metadata.endpoints).",
        },
        handler: async (request, reply) => {
          const path = request.url.slice(ENDPOINTS_PREFIX.length).split('?')[0] ?? '';
          const found = endpoints.match(request.method, path);
          // Without credentials (while auth is on) a missing endpoint is a 401 like a protected one, so
          // which endpoints exist is not told to strangers.
          if (!found) {
            await checkAuth(request, auth, requireAuth);
            throw new AppError('not-found', `no endpoint serves ${request.method} ${path}`);
          }
          const { route, params } = found;
          if (route.auth) await checkAuth(request, auth, requireAuth);
          const query: Record<string, string> = {};
          for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
            if (typeof value === 'string') query[name] = value;
          }
          const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
          const isJson = /json/i.test(request.headers['content-type'] ?? '');
          const built = newMessage(body, {
            type: `${request.method}:${route.path}`,
            dataType: isJson ? 'JSON' : 'TEXT',
            metadata: { ...query, ...params, method: request.method, path },
          });
          const message = applyInProcessors(route.inProcessors, built, {
            headers: request.headers,
            body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
            from: request.url,
          });
          if (!route.wait) {
            void endpoints.run(route.target, message).catch(() => undefined);
            return reply.code(200).send('');
          }
          const result = await endpoints.run(route.target, message);
          if (result.outcome === 'failure') {
            return reply.code(500).send({ error: result.error ?? 'the chain failed' });
          }
          const [first] = result.results;
          if (!first) return reply.code(204).send();
          const status = Number(first.metadata['statusCode'] ?? 200);
          const type =
            first.dataType === 'JSON' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
          return reply
            .headers(headersFromMetadata(route.outProcessors, first))
            .code(status >= 200 && status < 600 ? status : 200)
            .type(type)
            .send(first.data);
        },
      });
    },
    { prefix: ENDPOINTS_PREFIX },
  );
}
