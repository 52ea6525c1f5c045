// Cron tasks over REST: /cron and the agent-level variants under /agents/{agentId}/cron. The
// schedule is checked by the scheduler, whose messages name the bad field.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../core/errors.ts';
import type { CronScheduler } from '../../scheduler/scheduler.ts';
import { idParam } from '../../http/params.ts';
import { deleted } from '../../http/answers.ts';

const taskFields = {
  id: idParam.optional(),
  name: z.string().trim().min(1).max(200),
  schedule: z.string().min(1).max(200).meta({ description: 'second minute hour day month weekday' }),
  message: z.string().min(1).max(100_000),
};
const createBody = z.object({ ...taskFields, target: idParam });
const agentCreateBody = z.object({ ...taskFields, target: idParam.optional() });
const toggleBody = z.object({ disabled: z.boolean() });

export function registerCronRoutes(app: FastifyInstance, scheduler: CronScheduler): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['cron'];
  const idParams = z.object({ id: idParam });
  const agentParams = z.object({ agentId: idParam });
  const agentIdParams = z.object({ agentId: idParam, id: idParam });

  api.get(
    '/api/v1/cron',
    { schema: { tags, querystring: z.object({ agentId: idParam.optional() }) } },
    async (request) => scheduler.list({ agentId: request.query.agentId }),
  );
  api.get('/api/v1/cron/:id', { schema: { tags, params: idParams } }, async (request) =>
    scheduler.get(request.params.id),
  );
  api.post('/api/v1/cron', { schema: { tags, body: createBody } }, async (request, reply) => {
    const task = await scheduler.create(request.body);
    return reply.code(201).send(task);
  });
  api.delete('/api/v1/cron/:id', { schema: { tags, params: idParams } }, async (request) => {
    await scheduler.remove(request.params.id);
    return deleted(`cron task "${request.params.id}"`);
  });
  api.put(
    '/api/v1/cron/:id/toggle',
    { schema: { tags, params: idParams, body: toggleBody } },
    async (request) => scheduler.toggle(request.params.id, request.body.disabled),
  );
  api.post(
    '/api/v1/cron/:id/run',
    { schema: { tags, params: idParams, description: 'Runs the task once now and returns it.' } },
    async (request) => scheduler.runNow(request.params.id),
  );

  const base = '/api/v1/agents/:agentId/cron';
  api.get(base, { schema: { tags, params: agentParams } }, async (request) => {
    await scheduler.requireAgent(request.params.agentId);
    return scheduler.list({ agentId: request.params.agentId });
  });
  api.get(`${base}/:id`, { schema: { tags, params: agentIdParams } }, async (request) =>
    scheduler.get(request.params.id, request.params.agentId),
  );
  api.post(base, { schema: { tags, params: agentParams, body: agentCreateBody } }, async (request, reply) => {
    const { agentId } = request.params;
    const { target = agentId, ...fields } = request.body;
    if (target !== agentId)
      throw invalid(`body.target: must be "${agentId}" (the agent in the path) or left out`);
    await scheduler.requireAgent(agentId);
    const task = await scheduler.create({ ...fields, target });
    return reply.code(201).send(task);
  });
  api.delete(`${base}/:id`, { schema: { tags, params: agentIdParams } }, async (request) => {
    await scheduler.remove(request.params.id, request.params.agentId);
    return deleted(`cron task "${request.params.id}"`);
  });
  api.put(
    `${base}/:id/toggle`,
    { schema: { tags, params: agentIdParams, body: toggleBody } },
    async (request) => scheduler.toggle(request.params.id, request.body.disabled, request.params.agentId),
  );
}
