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
  archived: z
    .enum(['false', 'true', 'all'], 'must be false, true or all')
    .default('false')
    .meta({ description: 'archived conversations: left out (false, the default), the only ones (true), or all' }),
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
  pinned: z.boolean().meta({ description: 'pinned conversations are listed first' }),
  archived: z.boolean().meta({ description: 'archived conversations are left out of the list by default' }),
  createdAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  updatedAt: z.string().meta({ description: 'ISO 8601 UTC' }),
});

export const sessionMessageView = z.object({
  id: z.int().optional().meta({ description: 'the stored message (or summary entry) id' }),
  role: z.enum(['system', 'user', 'assistant', 'tool', 'summary']).meta({
    description: '`summary`: a compaction summary entry, listed right after the last message it folds',
  }),
  content: z.string().nullable(),
  images: z.array(z.string()).optional().meta({ description: 'pictures of a user message (data: URLs)' }),
  toolCalls: z
    .array(z.object({ id: z.string(), name: z.string(), arguments: z.string() }))
    .optional()
    .meta({ description: 'tools an assistant message called' }),
  toolCallId: z.string().optional().meta({ description: 'the call a tool message answers' }),
  folded: z
    .boolean()
    .optional()
    .meta({ description: 'true: compacted into a summary (the model now sees the summary instead)' }),
  summaryId: z.int().optional().meta({ description: 'the summary entry that first folded this message' }),
  status: z
    .enum(['stopped', 'failed'])
    .optional()
    .meta({ description: 'the answer of a turn that was stopped or failed' }),
  error: z.string().optional().meta({ description: 'what a failed turn failed with' }),
  usage: z
    .object({
      promptTokens: z.int(),
      completionTokens: z.int(),
      totalTokens: z.int(),
      cachedTokens: z.int().optional(),
      reasoningTokens: z.int().optional(),
      model: z.string().optional().meta({ description: 'the model that answered last, where known' }),
    })
    .optional()
    .meta({
      description:
        "the turn's token usage (every model call of the turn), on the last assistant message of a finished turn",
    }),
  firstId: z.int().optional().meta({ description: 'summary entries: the first message id folded' }),
  lastId: z.int().optional().meta({ description: 'summary entries: the last message id folded' }),
  parentId: z.int().optional().meta({
    description: 'the message this one follows (0: none); send it as parentMessageId to edit this message',
  }),
  siblingIds: z.array(z.int()).optional().meta({
    description:
      'when this message has other versions (an edit, a regenerated answer): every version\'s id, oldest first, this one included; POST .../branch with one to show it',
  }),
  createdAt: z.string().optional().meta({ description: 'ISO 8601 UTC' }),
});

export const sessionSearchQuery = z.object({
  q: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  limit: z.coerce.number().int().min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
});

export const sessionSearchAnswer = z.object({
  sessions: z.array(sessionView).meta({
    description: 'conversations whose title holds the query (ignoring case), most recently updated first',
  }),
  results: z.array(
    z.object({
      sessionKey: z.string(),
      sessionId: z.string(),
      messageId: z.int(),
      role: z.string(),
      score: z.number(),
      snippet: z.string(),
      at: z.string().meta({ description: 'ISO 8601 UTC' }),
    }),
  ),
});

export const compactAnswer = z.object({
  compacted: z.boolean(),
  reason: z.string().optional().meta({ description: 'why nothing was folded, or why the compaction failed' }),
  folded: z.int().meta({ description: 'messages folded into the new summary' }),
  flushed: z.boolean().meta({ description: 'whether the memory flush turn ran first' }),
  summary: z.object({ id: z.int(), firstId: z.int(), lastId: z.int(), content: z.string() }).optional(),
});

export const updateBody = z
  .object({
    title: z
      .string()
      .trim()
      .min(1, 'must not be empty (send null to remove the title)')
      .max(200, 'must be at most 200 characters')
      .nullable()
      .optional(),
    pinned: z.boolean().optional(),
    archived: z.boolean().optional(),
    agentId: idParam.optional().meta({
      description:
        'move the conversation to this agent (api-channel conversations; one the caller may use): its key then names that agent, the sessionId stays',
    }),
  })
  .refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    'send at least one of title, pinned, archived, agentId',
  );

export const branchBody = z.object({
  messageId: z.int().min(1, 'must be a message id').meta({
    description: 'a message of the conversation: the branch through it becomes the active one',
  }),
});
export const branchAnswer = z.object({
  leafId: z.int().meta({ description: 'the active branch\'s last message (the newest under messageId)' }),
});

export const exportQuery = z.object({
  format: z.enum(['md', 'json'], 'must be md or json').default('md'),
});

export type ClearBody = z.infer<typeof clearBody>;
export type ClearAnswer = z.infer<typeof clearAnswer>;
export type SessionView = z.infer<typeof sessionView>;
export type SessionMessageView = z.infer<typeof sessionMessageView>;
export type SessionListQuery = z.infer<typeof sessionListQuery>;
export type SessionSearchQuery = z.infer<typeof sessionSearchQuery>;
export type SessionSearchAnswer = z.infer<typeof sessionSearchAnswer>;
export type UpdateBody = z.infer<typeof updateBody>;
export type CompactAnswer = z.infer<typeof compactAnswer>;
