// GET/PUT /bindings: which agent answers which channel, account or peer.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { bindingsBody } from './bindings.schema.ts';
import type { BindingsService } from './bindings.service.ts';

export function registerBindingRoutes(app: FastifyInstance, bindings: BindingsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];
  // The answer has the shape of the body, so a GET can be PUT back.
  api.get('/bindings', { schema: { tags, response: { 200: bindingsBody } } }, async () => bindings.list());
  api.put(
    '/bindings',
    { schema: { tags, body: bindingsBody, response: { 200: bindingsBody } } },
    async (request) => bindings.replace(request.body.bindings),
  );
}
