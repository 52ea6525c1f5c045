// GET /monitor (the live monitoring page's snapshot) and GET /monitor/turns/{turnId} (a turn's
// trace). Users only: an api account watches its own turns over the WebSocket API instead.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { monitorSnapshot, turnParams, turnTrace } from './monitor.schema.ts';
import type { MonitorService } from './monitor.service.ts';

export function registerMonitorRoutes(app: FastifyInstance, monitor: MonitorService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['monitor'];
  api.get('/monitor', { schema: { tags, response: { 200: monitorSnapshot } } }, async () =>
    monitor.snapshot(),
  );
  api.get(
    '/monitor/turns/:turnId',
    { schema: { tags, params: turnParams, response: { 200: turnTrace } } },
    async (request) => monitor.turn(request.params.turnId),
  );
}
