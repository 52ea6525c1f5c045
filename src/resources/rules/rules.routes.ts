// Rule chains over REST: /rules (every chain), the agent-level variants under
// /agents/{agentId}/rules, execute and components. Definitions are validated by the engine, whose
// messages name the chain and the node.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RuleMessage } from '../../engine/types.ts';
import { registerCrudRoutes } from '../../http/crud-routes.ts';
import { paginate } from '../../http/pagination.ts';
import { runSignal } from '../../http/run-signal.ts';
import { agentParams, chainBody, chainListQuery } from '../agents/agents.schema.ts';
import { agentRuleParams, executeQuery, executeTypeParams, ruleParams } from './rules.schema.ts';
import type { RulesService } from './rules.service.ts';

/** One result is sent as it is (JSON or text); several as a JSON array. */
function sendResult(reply: FastifyReply, results: RuleMessage[]): FastifyReply {
  const [first] = results;
  if (results.length === 1 && first) {
    if (first.dataType === 'JSON') return reply.type('application/json; charset=utf-8').send(first.data);
    return reply.type('text/plain; charset=utf-8').send(first.data);
  }
  const items = results.map((message) => {
    if (message.dataType !== 'JSON') return message.data;
    try {
      return JSON.parse(message.data) as unknown;
    } catch {
      return message.data;
    }
  });
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(items));
}

export function registerRuleRoutes(app: FastifyInstance, rules: RulesService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['rules'];

  const chains = {
    tags,
    item: '/:id',
    listQuery: chainListQuery,
    body: chainBody,
    named: ({ id }: { id: string }) => `"${id}"`,
  };
  // Every chain.
  registerCrudRoutes(app, {
    ...chains,
    path: '/rules',
    params: ruleParams,
    list: ({ page, size, ...filter }) => paginate(rules.list(undefined, filter), { page, size }),
    create: (body) => rules.create(body),
    get: ({ id }) => rules.get(id),
    replace: ({ id }, body) => rules.update(id, body),
    remove: ({ id }) => rules.remove(id),
    reload: ({ id }) => rules.reload(id),
  });
  // The rule chains of one agent.
  registerCrudRoutes(app, {
    ...chains,
    path: '/agents/:agentId/rules',
    collectionParams: agentParams,
    params: agentRuleParams,
    list: ({ page, size, ...filter }, { agentId }) => paginate(rules.list(agentId, filter), { page, size }),
    create: (body, { agentId }) => rules.create(body, agentId),
    get: ({ id, agentId }) => rules.get(id, agentId),
    replace: ({ id, agentId }, body) => rules.update(id, body, agentId),
    remove: ({ id, agentId }) => rules.remove(id, agentId),
    reload: ({ id, agentId }) => rules.reload(id, agentId),
  });

  const execute = async (
    request: { params: { id: string; msgType?: string }; query: Record<string, string>; body: unknown },
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    const body = request.body;
    const data: string | object = body === undefined || body === null ? '' : (body as string | object);
    const run = runSignal(reply, rules.runTimeoutMs());
    try {
      const { id, msgType = '' } = request.params;
      return sendResult(reply, await rules.execute(id, data, request.query, run.signal, msgType));
    } finally {
      run.done();
    }
  };
  api.post(
    '/rules/:id/execute',
    {
      schema: {
        tags,
        params: ruleParams,
        querystring: executeQuery,
        description: 'Runs the chain once: the body is the message data, query parameters are its metadata.',
      },
    },
    execute,
  );
  api.post(
    '/rules/:id/execute/:msgType',
    {
      schema: {
        tags,
        params: executeTypeParams,
        querystring: executeQuery,
        description:
          'Runs the chain once with a message of type msgType: the body is the message data, query parameters are its metadata.',
      },
    },
    execute,
  );

  api.get('/components', { schema: { tags } }, async () => rules.components());
}
