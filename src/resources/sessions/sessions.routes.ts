// Sessions: an agent's conversations (list, read, rename, delete) and POST /sessions/clear.
// The per-agent routes also take an api account's key, limited to that account's own sessions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import { pageSchema, paginationQuery } from '../../http/pagination.ts';
import { runSignal } from '../../http/run-signal.ts';
import {
  agentSessionsParams,
  clearAnswer,
  clearBody,
  compactAnswer,
  sessionSearchAnswer,
  sessionSearchQuery,
  renameBody,
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
  api.patch(
    '/agents/:agentId/sessions/:sessionKey',
    { config, schema: { tags, params: sessionParams, body: renameBody, response: { 200: sessionView } } },
    async (request) =>
      sessions.rename(
        request.params.agentId,
        request.params.sessionKey,
        request.body.title,
        request.principal,
      ),
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
