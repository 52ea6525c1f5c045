// Shapes of the sessions resource.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { DEFAULT_SCOPE, SESSION_SCOPES } from '../../turns/session-key.ts';

/**
 * `sessionKey` is either a full key (agent:...:channel:...:scope:...:...) or the chat request's
 * sessionId, which is combined with agentId, channel and scope.
 */
export const clearBody = z.object({
  agentId: idParam,
  sessionKey: z.string().min(1).max(500),
  channel: z.string().min(1).max(64).default('api'),
  scope: z.enum(SESSION_SCOPES).default(DEFAULT_SCOPE),
});
export const clearAnswer = z.object({ success: z.boolean(), message: z.string() });

export type ClearBody = z.infer<typeof clearBody>;
export type ClearAnswer = z.infer<typeof clearAnswer>;
