// Sessions: an agent's conversations (list, read, rename, delete) and POST /sessions/clear.
// The per-agent routes also take an api account's key, limited to that account's own sessions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import { pageSchema, paginationQuery } from '../../http/pagination.ts';
import {
  agentSessionsParams,
  clearAnswer,
  clearBody,
  renameBody,
  sessionListQuery,
  sessionMessageView,
  sessionParams,
  sessionView,
} from './sessions.schema.ts';
import type { SessionsService } from './sessions.service.ts';

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
