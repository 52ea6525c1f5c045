// GET /monitor (the live monitoring page's snapshot) and GET /monitor/turns/{turnId} (a turn's
// trace). Users only: an api account watches its own turns over the WebSocket API instead.
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
import { monitorSnapshot, turnParams, turnTrace } from './monitor.schema.ts';
import type { MonitorService } from './monitor.service.ts';

export function registerMonitorRoutes(app: FastifyInstance, monitor: MonitorService): void {
  const api = jsonRoutes(app, ['monitor']);
  api.get('/monitor', { answer: monitorSnapshot }, async () => monitor.snapshot());
  api.get('/monitor/turns/:turnId', { params: turnParams, answer: turnTrace }, async (request) =>
    monitor.turn(request.params.turnId),
  );
}
