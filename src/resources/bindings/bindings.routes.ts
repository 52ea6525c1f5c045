// GET/PUT /bindings: which agent answers which channel, account or peer.
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
import { bindingsBody } from './bindings.schema.ts';
import type { BindingsService } from './bindings.service.ts';

export function registerBindingRoutes(app: FastifyInstance, bindings: BindingsService): void {
  const api = jsonRoutes(app, ['channels']);
  // The answer has the shape of the body, so a GET can be PUT back.
  api.get('/bindings', { answer: bindingsBody }, async () => bindings.list());
  api.put('/bindings', { body: bindingsBody, answer: bindingsBody }, async (request) =>
    bindings.replace(request.body.bindings),
  );
}
