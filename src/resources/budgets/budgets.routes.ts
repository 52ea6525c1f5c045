// /budgets: spending limits per agent, api account, channel, user or the whole server.
import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud-routes.ts';
import { budgetBody, budgetParams, budgetReplaceBody, budgetView } from './budgets.schema.ts';
import type { BudgetsService } from './budgets.service.ts';

export function registerBudgetRoutes(app: FastifyInstance, budgets: BudgetsService): void {
  registerCrudRoutes(app, {
    tags: ['budgets'],
    path: '/budgets',
    item: '/:id',
    params: budgetParams,
    body: budgetBody,
    replaceBody: budgetReplaceBody,
    listView: budgetView.array(),
    view: budgetView,
    createDescription:
      'Adds a budget to the config: scope {agent}|{account}|{channel, accountId?}|{user}|{}, period day|month, tokens and/or cost (USD), action block|warn, notify {platform, accountId?, chatId}.',
    named: ({ id }) => `budget "${id}"`,
    list: () => budgets.list(),
    create: (body) => budgets.create(body),
    get: ({ id }) => budgets.get(id),
    replace: ({ id }, body) => budgets.replace(id, body),
    remove: ({ id }) => budgets.remove(id),
  });
}
