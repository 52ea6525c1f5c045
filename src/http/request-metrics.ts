// HTTP request metrics: one count and one duration per answered request, labelled by method, route
// pattern (never the raw URL: ids would make the series unbounded) and status.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.ts';

export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = metrics.routes.value(request.routeOptions.url ?? 'unmatched');
    const method = request.method;
    metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
    done();
  });
}
