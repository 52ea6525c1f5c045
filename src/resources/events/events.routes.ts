// The three WebSocket event routes as HTTP sees them: documented here (OpenAPI), answered 426 to a
// request that does not upgrade. The upgrade itself is handled by events.socket.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  agentSocketQuerySchema,
  chainSocketQuerySchema,
  liveEventSchema,
  upgradeRequiredSchema,
} from './events.schema.ts';

const DESCRIPTION =
  'WebSocket (Upgrade: websocket). Sends events {id, type, agentId, taskId, timestamp, payload}; ' +
  'type is text, think, tool, tool_result, done, error, status or progress. Client messages: ' +
  '{"type":"ping"} (answered {"type":"pong"}) and, on /ws, {"type":"subscribe","agentId":"..."}. ' +
  'Credentials as for the REST API, or ?token= / Sec-WebSocket-Protocol: bearer.<token>. An api ' +
  'account sees only its own turns. A subscriber that does not read fast enough is closed with code 1013.';

const UPGRADE_REQUIRED = 'this route is a WebSocket: connect with Upgrade: websocket';

export function registerEventRoutes(app: FastifyInstance): void {
  const answer = { 101: liveEventSchema, 426: upgradeRequiredSchema };
  /** A WebSocket route as plain HTTP sees it: documented, and answered 426. */
  const socketRoute = (
    url: string,
    parts: { description?: string; params?: z.ZodType; querystring: z.ZodType },
  ) =>
    app.get(
      url,
      {
        config: { auth: 'chat' },
        schema: { tags: ['events'], description: DESCRIPTION, ...parts, response: answer },
      },
      async (_request, reply) => reply.code(426).send({ error: UPGRADE_REQUIRED }),
    );
  socketRoute('/ws', { querystring: agentSocketQuerySchema });
  socketRoute('/agents/:agentId/ws', {
    params: z.object({ agentId: z.string() }),
    querystring: agentSocketQuerySchema.omit({ agentId: true }),
  });
  socketRoute('/event/ws/:clientId', {
    description: `${DESCRIPTION} Chain subscriptions get each node's start and end (progress events with phase, relation, durationMs and error) and the run's end.`,
    params: z.object({ clientId: z.string() }),
    querystring: chainSocketQuerySchema,
  });
}
