// Sessions: an agent's conversations (list, read, rename, delete) and POST /sessions/clear.
// The per-agent routes also take an api account's key, limited to that account's own sessions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import { pageSchema, paginationQuery } from '../../http/pagination.ts';
import { runSignal } from '../../http/run-signal.ts';
import {
  agentSessionsParams,
  branchAnswer,
  branchBody,
  clearAnswer,
  clearBody,
  compactAnswer,
  sessionSearchAnswer,
  sessionSearchQuery,
  exportQuery,
  updateBody,
  sessionListQuery,
  sessionMessageView,
  sessionParams,
  sessionView,
} from './sessions.schema.ts';
import type { SessionsService } from './sessions.service.ts';

/** A manual compaction (flush turn and summariser calls, with retries) may take this long. */
const COMPACT_TIMEOUT_MS = 300_000;

export function registerSessionRoutes(app: FastifyInstance, sessions: SessionsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['sessions'];
  const config = { auth: 'chat' as const };

  api.post(
    '/sessions/clear',
    { schema: { tags, body: clearBody, response: { 200: clearAnswer } } },
    async (request) => sessions.clear(request.body),
  );
  api.get(
    '/agents/:agentId/sessions',
    {
      config,
      schema: {
        tags,
        params: agentSessionsParams,
        querystring: sessionListQuery,
        response: { 200: pageSchema(sessionView) },
      },
    },
    async (request) => sessions.list(request.params.agentId, request.query, request.principal),
  );
  api.get(
    '/agents/:agentId/sessions/search',
    {
      config,
      schema: {
        tags,
        summary: "Keyword search over the agent's transcripts the caller may see",
        description:
          'Compacted parts included. Scoped as the session list: users see every session of the agent, an api account only its own. Best first; nothing under the relevance threshold.',
        params: agentSessionsParams,
        querystring: sessionSearchQuery,
        response: { 200: sessionSearchAnswer },
      },
    },
    async (request) => sessions.search(request.params.agentId, request.query, request.principal),
  );
  api.post(
    '/agents/:agentId/sessions/:sessionKey/compact',
    {
      config,
      schema: {
        tags,
        summary: 'Compact a session now',
        description:
          'Runs the memory flush, then folds all but the newest turns into a summary entry. Messages are never deleted. A summariser that fails its guard leaves the session unchanged (compacted: false, with the reason).',
        params: sessionParams,
        response: { 200: compactAnswer },
      },
    },
    async (request, reply) => {
      const run = runSignal(reply, COMPACT_TIMEOUT_MS);
      try {
        return await sessions.compact(
          request.params.agentId,
          request.params.sessionKey,
          request.principal,
          run.signal,
        );
      } finally {
        run.done();
      }
    },
  );
  api.get(
    '/agents/:agentId/sessions/:sessionKey',
    { config, schema: { tags, params: sessionParams, response: { 200: sessionView } } },
    async (request) => sessions.get(request.params.agentId, request.params.sessionKey, request.principal),
  );
  api.get(
    '/agents/:agentId/sessions/:sessionKey/messages',
    {
      config,
      schema: {
        tags,
        params: sessionParams,
        querystring: paginationQuery,
        response: { 200: pageSchema(sessionMessageView) },
      },
    },
    async (request) =>
      sessions.messages(request.params.agentId, request.params.sessionKey, request.query, request.principal),
  );
  api.get(
    '/agents/:agentId/sessions/:sessionKey/export',
    {
      config,
      schema: {
        tags,
        summary: "Download a conversation's active branch",
        description:
          'format=md (the default): Markdown, one heading per message, tool calls folded in <details>; format=json: the session and its messages as GET .../messages gives them. Sent as an attachment named after the title.',
        params: sessionParams,
        querystring: exportQuery,
        response: { 200: z.string() },
      },
    },
    async (request, reply) => {
      const file = await sessions.export(
        request.params.agentId,
        request.params.sessionKey,
        request.query.format,
        request.principal,
      );
      const ascii = file.filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
      return reply
        .header('content-type', file.contentType)
        .header(
          'content-disposition',
          `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        )
        .send(file.body);
    },
  );
  api.post(
    '/agents/:agentId/sessions/:sessionKey/branch',
    {
      config,
      schema: {
        tags,
        summary: 'Show another version of a message (switch the active branch)',
        description:
          "The branch through messageId becomes the conversation's active one, up to the newest message under it; the next message continues it. Nothing is deleted.",
        params: sessionParams,
        body: branchBody,
        response: { 200: branchAnswer },
      },
    },
    async (request) =>
      sessions.switchBranch(
        request.params.agentId,
        request.params.sessionKey,
        request.body.messageId,
        request.principal,
      ),
  );
  api.patch(
    '/agents/:agentId/sessions/:sessionKey',
    {
      config,
      schema: {
        tags,
        summary: 'Rename, pin, archive, or move a conversation to another agent',
        description:
          "Any of title (null removes it), pinned, archived, agentId. agentId moves an api conversation to another agent the caller may use: the answer's key names the new agent, the sessionId stays, and its next turn is answered by that agent with the whole history.",
        params: sessionParams,
        body: updateBody,
        response: { 200: sessionView },
      },
    },
    async (request) =>
      sessions.update(request.params.agentId, request.params.sessionKey, request.body, request.principal),
  );
  api.delete(
    '/agents/:agentId/sessions/:sessionKey',
    { config, schema: { tags, params: sessionParams, response: { 200: successAnswer } } },
    async (request) => {
      const key = await sessions.remove(request.params.agentId, request.params.sessionKey, request.principal);
      return deleted(`session "${key}"`);
    },
  );
}
