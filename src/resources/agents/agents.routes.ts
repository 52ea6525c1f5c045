// Agents over REST: list, read, create, replace, delete and reload agent definitions.
import type { FastifyInstance } from 'fastify';
import { mayUseAgent } from '../../auth/agent-access.ts';
import { registerCrudRoutes } from '../../http/crud-routes.ts';
import { paginate } from '../../http/pagination.ts';
import { agentParams, chainBody, chainListQuery } from './agents.schema.ts';
import type { AgentsService } from './agents.service.ts';

export function registerAgentRoutes(app: FastifyInstance, agents: AgentsService): void {
  registerCrudRoutes(app, {
    tags: ['agents'],
    path: '/agents',
    item: '/:agentId',
    params: agentParams,
    listQuery: chainListQuery,
    body: chainBody,
    named: ({ agentId }) => `"${agentId}"`,
    list: ({ page, size, ...filter }, _params, request) => {
      const visible = agents
        .list(filter)
        .filter((agent) => mayUseAgent(request.principal, String(agent.ruleChain['id'])));
      return paginate(visible, { page, size });
    },
    create: (body) => agents.create(body),
    get: ({ agentId }) => agents.get(agentId),
    replace: ({ agentId }, body) => agents.update(agentId, body),
    remove: ({ agentId }) => agents.remove(agentId),
    reload: ({ agentId }) => agents.reload(agentId),
  });
}
