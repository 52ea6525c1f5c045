// The OpenAI Responses API: POST /responses runs an agent turn (`model` is the agent id), streamed
// as the API's semantic events or answered whole; stored responses are read, listed (input items),
// cancelled and deleted by id. Mounted under /api/v1 and, as an alias, under /v1, so a client whose
// base URL is http://host:9527/v1 works unchanged. Same credentials as the chat endpoint.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { watchClient } from '../../http/disconnect.ts';
import { jsonRoutes } from '../../http/json-routes.ts';
import { pipeSse } from '../../http/sse.ts';
import { reasoningStream, reasoningView, wantsReasoningView } from './response-compat.ts';
import {
  createResponseSchema,
  deletedResponseSchema,
  inputItemListSchema,
  inputItemsQuerySchema,
  responseObjectSchema,
  responseParamsSchema,
  retrieveQuerySchema,
} from './responses.schema.ts';
import type { ResponsesService } from './responses.service.ts';
import type { StreamEvent } from './response-builder.ts';

/** A Response as the service builds it, typed as the route's answer schema (which checks it). */
const asResponse = async (body: Promise<Record<string, unknown>>) =>
  (await body) as z.infer<typeof responseObjectSchema>;

export function registerResponseRoutes(app: FastifyInstance, responses: ResponsesService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['responses'];
  const config = { auth: 'chat' as const };

  const createSchema = {
    tags,
    summary: 'Run an agent turn (model = agent id); JSON, or text/event-stream with stream: true',
    body: createResponseSchema,
    response: { 200: responseObjectSchema },
  };
  api.post('/responses', { config, schema: createSchema }, async (request, reply) => {
    const body = request.body;
    const prepared = await responses.prepare(body, request.principal);
    const compat = wantsReasoningView(request.headers['user-agent']);
    if (body.background)
      return asResponse(
        responses.startBackground(prepared, (error) =>
          request.log.error({ err: error }, 'background response failed'),
        ),
      );
    if (!body.stream) {
      const client = watchClient(reply);
      const result = await responses.run(prepared, client.signal).finally(client.dispose);
      if (result.failure) throw result.failure;
      return asResponse(Promise.resolve(compat ? reasoningView(result.response) : result.response));
    }
    await pipeSse(
      reply,
      (signal) => {
        const events = responses.stream(prepared, signal);
        return compat ? reasoningStream(events) : events;
      },
      // A failed turn is told by the stream itself (response.failed), so there is no error frame.
      { frame: (event: StreamEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n` },
    );
    return reply;
  });

  const stored = jsonRoutes(app, tags, config);
  stored.get(
    '/responses/:responseId',
    {
      summary: 'A stored (or running) response',
      params: responseParamsSchema,
      querystring: retrieveQuerySchema,
      answer: responseObjectSchema,
    },
    async (request) => asResponse(responses.get(request.params.responseId, request.principal)),
  );
  stored.delete(
    '/responses/:responseId',
    { summary: 'Delete a stored response', params: responseParamsSchema, answer: deletedResponseSchema },
    async (request) => responses.delete(request.params.responseId, request.principal),
  );
  stored.post(
    '/responses/:responseId/cancel',
    { summary: 'Cancel a running response', params: responseParamsSchema, answer: responseObjectSchema },
    async (request) => asResponse(responses.cancel(request.params.responseId, request.principal)),
  );
  stored.get(
    '/responses/:responseId/input_items',
    {
      summary: 'The input items of a stored response, newest first by default',
      params: responseParamsSchema,
      querystring: inputItemsQuerySchema,
      answer: inputItemListSchema,
    },
    async (request) => responses.inputItems(request.params.responseId, request.query, request.principal),
  );
}
