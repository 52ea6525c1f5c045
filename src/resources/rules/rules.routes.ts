// Rule chains over REST: /rules (every chain), the agent-level variants under
// /agents/{agentId}/rules, execute and components. Definitions are validated by the engine, whose
// messages name the chain and the node.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RuleMessage } from '../../engine/types.ts';
import { deleted, successAnswer } from '../../http/answers.ts';
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

  // Every chain.
  api.get('/rules', { schema: { tags, querystring: chainListQuery } }, async (request) => {
    const { page, size, ...filter } = request.query;
    return paginate(rules.list(undefined, filter), { page, size });
  });
  api.get('/rules/:id', { schema: { tags, params: ruleParams } }, async (request) =>
    rules.get(request.params.id),
  );
  api.post('/rules', { schema: { tags, body: chainBody } }, async (request, reply) => {
    reply.code(201);
    return rules.create(request.body);
  });
  api.put('/rules/:id', { schema: { tags, params: ruleParams, body: chainBody } }, async (request) =>
    rules.update(request.params.id, request.body),
  );
  api.delete(
    '/rules/:id',
    { schema: { tags, params: ruleParams, response: { 200: successAnswer } } },
    async (request) => {
      await rules.remove(request.params.id);
      return deleted(`"${request.params.id}"`);
    },
  );
  api.post('/rules/:id/reload', { schema: { tags, params: ruleParams } }, async (request) =>
    rules.reload(request.params.id),
  );

  // The rule chains of one agent.
  const base = '/agents/:agentId/rules';
  api.get(base, { schema: { tags, params: agentParams, querystring: chainListQuery } }, async (request) => {
    const { page, size, ...filter } = request.query;
    return paginate(rules.list(request.params.agentId, filter), { page, size });
  });
  api.get(`${base}/:id`, { schema: { tags, params: agentRuleParams } }, async (request) =>
    rules.get(request.params.id, request.params.agentId),
  );
  api.post(base, { schema: { tags, params: agentParams, body: chainBody } }, async (request, reply) => {
    reply.code(201);
    return rules.create(request.body, request.params.agentId);
  });
  api.put(`${base}/:id`, { schema: { tags, params: agentRuleParams, body: chainBody } }, async (request) =>
    rules.update(request.params.id, request.body, request.params.agentId),
  );
  api.delete(
    `${base}/:id`,
    { schema: { tags, params: agentRuleParams, response: { 200: successAnswer } } },
    async (request) => {
      await rules.remove(request.params.id, request.params.agentId);
      return deleted(`"${request.params.id}"`);
    },
  );
  api.post(`${base}/:id/reload`, { schema: { tags, params: agentRuleParams } }, async (request) =>
    rules.reload(request.params.id, request.params.agentId),
  );

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
