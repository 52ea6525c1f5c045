// GET /usage?from=&to=&groupBy=: what the model calls used and cost.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { usageAnswer, usageQuery } from './usage.schema.ts';
import type { UsageService } from './usage.service.ts';

export function registerUsageRoutes(app: FastifyInstance, usage: UsageService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/usage',
    {
      schema: {
        tags: ['usage'],
        description:
          'Tokens, calls and cost of every model call in [from, to) (days in the server time zone), in total and per agent, provider, model, channel, account, user or day.',
        querystring: usageQuery,
        response: { 200: usageAnswer },
      },
    },
    async (request) => usage.usage(request.query),
  );
}
