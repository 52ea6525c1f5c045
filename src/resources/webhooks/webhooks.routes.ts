// Mounted outside /api/v1. Bodies are kept raw (signatures are computed over the exact bytes), up
// to the server's body limit, whatever their content type.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebhookRequest } from '../../channels/types.ts';
import { webhookParams } from './webhooks.schema.ts';
import type { WebhooksService } from './webhooks.service.ts';

export const WEBHOOK_PREFIX = '/webhooks';

function toRequest(request: FastifyRequest): WebhookRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const query: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') query[name] = value;
  }
  return {
    method: request.method === 'GET' ? 'GET' : 'POST',
    headers,
    query,
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
  };
}

export async function registerWebhookRoutes(app: FastifyInstance, webhooks: WebhooksService): Promise<void> {
  await app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      const api = scope.withTypeProvider<ZodTypeProvider>();
      for (const method of ['GET', 'POST'] as const) {
        api.route({
          method,
          url: '/:platform/:accountId',
          // Platforms call from anywhere with their own Host: their signature is the check.
          config: { auth: 'public', origin: 'platform' },
          schema: { tags: ['webhooks'], params: webhookParams },
          handler: async (request, reply) => {
            const answer = await webhooks.handle(
              request.params.platform,
              request.params.accountId,
              toRequest(request),
            );
            reply.code(answer.status);
            if (answer.contentType) reply.type(answer.contentType);
            if (answer.body === undefined) return reply.send();
            if (typeof answer.body === 'string')
              return reply.type(answer.contentType ?? 'text/plain; charset=utf-8').send(answer.body);
            return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
          },
        });
      }
    },
    { prefix: WEBHOOK_PREFIX },
  );
}
