// Rule chains over REST: /rules, the agent-level variants under /agents/{agentId}/rules, execute and
// components. Definitions are validated by the engine, whose messages name the chain and the node.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { deleted } from '../../http/answers.ts';
import { idParam } from '../../http/params.ts';
import { runSignal } from '../../http/run-signal.ts';
import { describeComponents } from '../../engine/components.ts';
import type { NodeRegistry } from '../../engine/registry.ts';
import type { RuleMessage } from '../../engine/types.ts';
import { paginate, paginationQuery } from '../../http/pagination.ts';
import type { ChainCatalog, Scope } from '../../chains/chain-catalog.ts';

export const chainBody = z
  .looseObject({ ruleChain: z.looseObject({}), metadata: z.looseObject({}) })
  .meta({ description: 'A RuleGo rule chain: {ruleChain: {id, name, ...}, metadata: {nodes, connections}}' });
const booleanText = z.enum(['true', 'false']).transform((value) => value === 'true');
const listQuery = paginationQuery.extend({
  agentId: idParam.optional(),
  category: z.string().max(200).optional(),
  loaded: booleanText.optional(),
});

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

/** Registers GET/POST list and GET/PUT/DELETE/reload item routes for one scope under `base`. */
export function registerChainCrud(
  app: FastifyInstance,
  chains: ChainCatalog,
  base: string,
  scopeOf: (params: Record<string, string>) => Scope,
  tags: string[],
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const paramsWith = (extra: Record<string, z.ZodType>) =>
    z.object({ ...(base.includes(':agentId') ? { agentId: idParam } : {}), ...extra });
  const itemParam = base === '/api/v1/agents' ? 'agentId' : 'id';
  const item = `${base}/:${itemParam}`;
  const itemParams = paramsWith({ [itemParam]: idParam });
  const idFrom = (params: Record<string, string>) => params[itemParam] ?? '';

  api.get(base, { schema: { tags, params: paramsWith({}), querystring: listQuery } }, async (request) => {
    const { page, size, ...filter } = request.query;
    return paginate(chains.list(scopeOf(request.params as Record<string, string>), filter), { page, size });
  });
  api.get(item, { schema: { tags, params: itemParams } }, async (request) => {
    const params = request.params as Record<string, string>;
    return chains.get(idFrom(params), scopeOf(params));
  });
  api.post(base, { schema: { tags, params: paramsWith({}), body: chainBody } }, async (request, reply) => {
    reply.code(201);
    return chains.create(request.body, scopeOf(request.params as Record<string, string>));
  });
  api.put(item, { schema: { tags, params: itemParams, body: chainBody } }, async (request) => {
    const params = request.params as Record<string, string>;
    return chains.update(idFrom(params), request.body, scopeOf(params));
  });
  api.delete(item, { schema: { tags, params: itemParams } }, async (request) => {
    const params = request.params as Record<string, string>;
    await chains.remove(idFrom(params), scopeOf(params));
    return deleted(`"${idFrom(params)}"`);
  });
  api.post(`${item}/reload`, { schema: { tags, params: itemParams } }, async (request) => {
    const params = request.params as Record<string, string>;
    return chains.reload(idFrom(params), scopeOf(params));
  });
}

export function registerRuleRoutes(
  app: FastifyInstance,
  chains: ChainCatalog,
  registry: NodeRegistry,
  requestTimeoutMs: () => number,
): void {
  const tags = ['rules'];
  registerChainCrud(app, chains, '/api/v1/rules', () => ({ kind: 'any' }), tags);
  registerChainCrud(
    app,
    chains,
    '/api/v1/agents/:agentId/rules',
    (p) => ({ kind: 'rule', agentId: p['agentId'] ?? '' }),
    tags,
  );

  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/api/v1/rules/:id/execute',
    {
      schema: {
        tags,
        params: z.object({ id: idParam }),
        querystring: z.record(z.string(), z.string()),
        description: 'Runs the chain once: the body is the message data, query parameters are its metadata.',
      },
    },
    async (request, reply) => {
      const body = request.body;
      const data: string | object = body === undefined || body === null ? '' : (body as string | object);
      const run = runSignal(reply, requestTimeoutMs());
      try {
        const result = await chains.execute(request.params.id, data, request.query, { signal: run.signal });
        if (result.outcome === 'failure')
          throw new AppError('invalid', result.error ?? 'the rule chain failed');
        return sendResult(reply, result.results);
      } finally {
        run.done();
      }
    },
  );

  app.get('/api/v1/components', { schema: { tags } }, async () => describeComponents(registry));
}
