// GET /metrics: the Prometheus text exposition. Protected like the API (a user's token or API key
// while security.requireAuth is on) unless observability.metrics_public lets any scraper in.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthenticated } from '../../core/errors.ts';
import type { AuthService } from '../../auth/auth-service.ts';
import type { Metrics } from '../../observability/metrics.ts';

export interface MetricsRouteDeps {
  metrics: Metrics;
  auth: AuthService;
  requireAuth: () => boolean;
  isPublic: () => boolean;
}

export function registerMetricsRoute(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const check = async (request: FastifyRequest): Promise<void> => {
    if (deps.isPublic() || !deps.requireAuth()) return;
    const header = request.headers.authorization;
    const credential = header ? /^Bearer\s+(\S+)\s*$/iu.exec(header)?.[1] : undefined;
    if (!credential) throw unauthenticated('missing Authorization: Bearer <token or API key>');
    const principal = await deps.auth.resolveBearer(credential);
    if (principal?.kind !== 'user') throw unauthenticated('invalid or expired credentials');
  };
  app.get(
    '/metrics',
    {
      config: { auth: 'public' },
      onRequest: check,
      schema: {
        tags: ['observability'],
        description:
          'Prometheus text exposition (version 0.0.4). Needs a user credential while security.requireAuth ' +
          'is on, unless observability.metrics_public is true.',
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await deps.metrics.scrape();
      return reply.type(contentType).send(body);
    },
  );
}
