// What a member user may reach: chat with the agents it is given, its own sessions of them, its
// own API key and password. Every other route (config, channels, chains, rules, skills, cron,
// users...) answers 403, and a route naming an agent the member is not given answers 403 too.
import type { FastifyRequest } from 'fastify';
import { mayUseAgent } from '../auth/agent-access.ts';
import { forbidden } from '../core/errors.ts';
import { API_PREFIX } from './prefix.ts';

const MEMBER_ROUTES = new Set(
  [
    'GET /agents',
    'GET /agents/:agentId',
    'GET /agents/:agentId/sessions',
    'GET /agents/:agentId/sessions/:sessionKey',
    'GET /agents/:agentId/sessions/:sessionKey/messages',
    'GET /agents/:agentId/sessions/search',
    'GET /agents/:agentId/sessions/:sessionKey/export',
    'POST /agents/:agentId/sessions/:sessionKey/branch',
    'PATCH /agents/:agentId/sessions/:sessionKey',
    'DELETE /agents/:agentId/sessions/:sessionKey',
    'POST /chat/completions',
    'POST /agents/:agentId/agui',
    'GET /auth/api-key',
    'POST /auth/api-key',
    'PUT /auth/password',
    'GET /auth/me',
  ].map((route) => {
    const [method, path] = route.split(' ') as [string, string];
    return `${method} ${API_PREFIX}${path}`;
  }),
);

/** Throws 403 unless a member may make this request. */
export function checkMemberRequest(request: FastifyRequest): void {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  const isA2A = request.routeOptions.url?.startsWith(`${API_PREFIX}/a2a/`) ?? false;
  if (!MEMBER_ROUTES.has(route) && !isA2A)
    throw forbidden('members may only chat with their agents and manage their own sessions and API key');
  const agentId = (request.params as Record<string, unknown> | undefined)?.['agentId'];
  if (typeof agentId === 'string' && !mayUseAgent(request.principal, agentId))
    throw forbidden(`you may not use agent "${agentId}"`);
}
