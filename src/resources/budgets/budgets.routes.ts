// /budgets: spending limits per agent, api account, channel, user or the whole server.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import { budgetBody, budgetParams, budgetReplaceBody, budgetView } from './budgets.schema.ts';
import type { BudgetsService } from './budgets.service.ts';

export function registerBudgetRoutes(app: FastifyInstance, budgets: BudgetsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['budgets'];
  api.get('/budgets', { schema: { tags, response: { 200: budgetView.array() } } }, async () =>
    budgets.list(),
  );
  api.post(
    '/budgets',
    {
      schema: {
        tags,
        description:
          'Adds a budget to the config: scope {agent}|{account}|{channel, accountId?}|{user}|{}, period day|month, tokens and/or cost (USD), action block|warn, notify {platform, accountId?, chatId}.',
        body: budgetBody,
        response: { 201: budgetView },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return budgets.create(request.body);
    },
  );
  api.get(
    '/budgets/:id',
    { schema: { tags, params: budgetParams, response: { 200: budgetView } } },
    async (request) => budgets.get(request.params.id),
  );
  api.put(
    '/budgets/:id',
    { schema: { tags, params: budgetParams, body: budgetReplaceBody, response: { 200: budgetView } } },
    async (request) => budgets.replace(request.params.id, request.body),
  );
  api.delete(
    '/budgets/:id',
    { schema: { tags, params: budgetParams, response: { 200: successAnswer } } },
    async (request) => {
      await budgets.remove(request.params.id);
      return deleted(`budget "${request.params.id}"`);
    },
  );
}
