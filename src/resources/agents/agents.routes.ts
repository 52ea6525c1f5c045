// Agents over REST: list, read, create, replace, delete and reload agent definitions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { mayUseAgent } from '../../auth/agent-access.ts';
import { deleted, successAnswer } from '../../http/answers.ts';
import { paginate } from '../../http/pagination.ts';
import { agentParams, chainBody, chainListQuery } from './agents.schema.ts';
import type { AgentsService } from './agents.service.ts';

export function registerAgentRoutes(app: FastifyInstance, agents: AgentsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['agents'];

  api.get('/agents', { schema: { tags, querystring: chainListQuery } }, async (request) => {
    const { page, size, ...filter } = request.query;
    const visible = agents.list(filter).filter((agent) => mayUseAgent(request.principal, String(agent.ruleChain['id'])));
    return paginate(visible, { page, size });
  });
  api.get('/agents/:agentId', { schema: { tags, params: agentParams } }, async (request) =>
    agents.get(request.params.agentId),
  );
  api.post('/agents', { schema: { tags, body: chainBody } }, async (request, reply) => {
    reply.code(201);
    return agents.create(request.body);
  });
  api.put('/agents/:agentId', { schema: { tags, params: agentParams, body: chainBody } }, async (request) =>
    agents.update(request.params.agentId, request.body),
  );
  api.delete(
    '/agents/:agentId',
    { schema: { tags, params: agentParams, response: { 200: successAnswer } } },
    async (request) => {
      await agents.remove(request.params.agentId);
      return deleted(`"${request.params.agentId}"`);
    },
  );
  api.post('/agents/:agentId/reload', { schema: { tags, params: agentParams } }, async (request) =>
    agents.reload(request.params.agentId),
  );
}
