// POST /channels/{platform}/send, /send-image and /send-file: outbound messages through a channel
// account (see messages.service.ts for the statuses).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { platformParams } from '../channels/channels.schema.ts';
import { fileBody, imageBody, sentAnswer, textBody } from './messages.schema.ts';
import type { MessagesService } from './messages.service.ts';

export function registerMessageRoutes(app: FastifyInstance, messages: MessagesService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];
  const response = { 200: sentAnswer };

  api.post(
    '/channels/:platform/send',
    { schema: { tags, params: platformParams, body: textBody, response } },
    async (request) => messages.sendText(request.params.platform, request.body),
  );
  api.post(
    '/channels/:platform/send-image',
    { schema: { tags, params: platformParams, body: imageBody, response } },
    async (request) => messages.sendImage(request.params.platform, request.body),
  );
  api.post(
    '/channels/:platform/send-file',
    { schema: { tags, params: platformParams, body: fileBody, response } },
    async (request) => messages.sendFile(request.params.platform, request.body),
  );
}
