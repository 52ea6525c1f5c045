import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SessionStore } from '../../storage/session-store.ts';
import { DEFAULT_SCOPE, SESSION_SCOPES, sessionKey } from '../../turns/session-key.ts';
import { idParam } from '../../http/params.ts';

const clearBody = z.object({
  agentId: idParam,
  sessionKey: z.string().min(1).max(500),
  channel: z.string().min(1).max(64).default('api'),
  scope: z.enum(SESSION_SCOPES).default(DEFAULT_SCOPE),
});

/**
 * POST /sessions/clear. `sessionKey` is either a full key (agent:...:channel:...:scope:...:...) or
 * the chat request's sessionId, which is combined with agentId, channel and scope.
 */
export function registerSessionRoutes(app: FastifyInstance, sessions: SessionStore): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/sessions/clear',
    {
      schema: {
        tags: ['sessions'],
        body: clearBody,
        response: { 200: z.object({ success: z.boolean(), message: z.string() }) },
      },
    },
    async (request) => {
      const { agentId, channel, scope } = request.body;
      const key = request.body.sessionKey.startsWith('agent:')
        ? request.body.sessionKey
        : sessionKey({ agentId, channel, scope, scopeId: request.body.sessionKey });
      if (!key.startsWith(`agent:${agentId}:`)) {
        return { success: false, message: `session "${key}" does not belong to agent "${agentId}"` };
      }
      const cleared = await sessions.clear(key);
      return cleared
        ? { success: true, message: `session "${key}" cleared` }
        : { success: false, message: `session "${key}" not found` };
    },
  );
}
