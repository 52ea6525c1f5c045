// Shapes of the sessions resource.
import { z } from 'zod';
import { paginationQuery } from '../../http/pagination.ts';
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

/** A full session key, or the chat sessionId of a conversation of the `api` channel. */
const sessionKeyParam = z
  .string()
  .min(1, 'must not be empty')
  .max(500, 'must be at most 500 characters')
  .meta({ description: 'a full session key (agent:...), or the sessionId a chat request sent' });

export const agentSessionsParams = z.object({ agentId: idParam });
export const sessionParams = z.object({ agentId: idParam, sessionKey: sessionKeyParam });

export const sessionListQuery = paginationQuery.extend({
  channel: z.string().min(1).max(64).optional().meta({ description: 'only sessions of this channel' }),
});

export const sessionView = z.object({
  key: z.string(),
  /** What follows `scope:<scope>:` in the key: the chat sessionId for the api channel. */
  sessionId: z.string(),
  agentId: z.string(),
  channel: z.string(),
  scope: z.string(),
  title: z.string().nullable(),
  preview: z.string().meta({ description: 'the start of the first user message' }),
  messageCount: z.int(),
  createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  updatedAt: z.string().meta({ description: 'ISO 8601 UTC' }),
});

export const sessionMessageView = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  images: z.array(z.string()).optional().meta({ description: 'pictures of a user message (data: URLs)' }),
  toolCalls: z
    .array(z.object({ id: z.string(), name: z.string(), arguments: z.string() }))
    .optional()
    .meta({ description: 'tools an assistant message called' }),
  toolCallId: z.string().optional().meta({ description: 'the call a tool message answers' }),
});

export const renameBody = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'must not be empty (send null to remove the title)')
    .max(200, 'must be at most 200 characters')
    .nullable(),
});

export type ClearBody = z.infer<typeof clearBody>;
export type ClearAnswer = z.infer<typeof clearAnswer>;
export type SessionView = z.infer<typeof sessionView>;
export type SessionMessageView = z.infer<typeof sessionMessageView>;
export type SessionListQuery = z.infer<typeof sessionListQuery>;
