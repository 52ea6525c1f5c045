// Cron tasks over REST: /cron and the agent-level variants under /agents/{agentId}/cron.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import { agentParams } from '../agents/agents.schema.ts';
import {
  agentTaskBody,
  agentTaskParams,
  previewAnswer,
  previewQuery,
  runsAnswer,
  taskBody,
  taskListQuery,
  taskParams,
  toggleBody,
} from './cron.schema.ts';
import type { CronService } from './cron.service.ts';

export function registerCronRoutes(app: FastifyInstance, cron: CronService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['cron'];

  api.get('/cron', { schema: { tags, querystring: taskListQuery } }, async (request) =>
    cron.list(request.query.agentId),
  );
  // Registered before /cron/:id; a static segment wins over a parameter in fastify's router.
  api.get(
    '/cron/preview',
    {
      schema: {
        tags,
        querystring: previewQuery,
        description:
          'The next fire times of a schedule (count, default 5, at most 50), in the server time zone.',
        response: { 200: previewAnswer },
      },
    },
    async (request) => cron.preview(request.query.schedule, request.query.count),
  );
  api.get('/cron/:id', { schema: { tags, params: taskParams } }, async (request) =>
    cron.get(request.params.id),
  );
  api.post('/cron', { schema: { tags, body: taskBody } }, async (request, reply) => {
    const task = await cron.create(request.body);
    return reply.code(201).send(task);
  });
  api.delete(
    '/cron/:id',
    { schema: { tags, params: taskParams, response: { 200: successAnswer } } },
    async (request) => {
      await cron.remove(request.params.id);
      return deleted(`cron task "${request.params.id}"`);
    },
  );
  api.put('/cron/:id/toggle', { schema: { tags, params: taskParams, body: toggleBody } }, async (request) =>
    cron.toggle(request.params.id, request.body.disabled),
  );
  api.post(
    '/cron/:id/run',
    { schema: { tags, params: taskParams, description: 'Runs the task once now and returns it.' } },
    async (request) => cron.runNow(request.params.id),
  );
  api.get(
    '/cron/:id/runs',
    {
      schema: {
        tags,
        params: taskParams,
        description: 'The recent runs of a task, newest first.',
        response: { 200: runsAnswer },
      },
    },
    async (request) => ({ data: await cron.runs(request.params.id) }),
  );

  const base = '/agents/:agentId/cron';
  api.get(base, { schema: { tags, params: agentParams } }, async (request) =>
    cron.listFor(request.params.agentId),
  );
  api.get(`${base}/:id`, { schema: { tags, params: agentTaskParams } }, async (request) =>
    cron.get(request.params.id, request.params.agentId),
  );
  api.post(base, { schema: { tags, params: agentParams, body: agentTaskBody } }, async (request, reply) => {
    const task = await cron.createFor(request.params.agentId, request.body);
    return reply.code(201).send(task);
  });
  api.delete(
    `${base}/:id`,
    { schema: { tags, params: agentTaskParams, response: { 200: successAnswer } } },
    async (request) => {
      await cron.remove(request.params.id, request.params.agentId);
      return deleted(`cron task "${request.params.id}"`);
    },
  );
  api.put(
    `${base}/:id/toggle`,
    { schema: { tags, params: agentTaskParams, body: toggleBody } },
    async (request) => cron.toggle(request.params.id, request.body.disabled, request.params.agentId),
  );
  api.post(
    `${base}/:id/run`,
    { schema: { tags, params: agentTaskParams, description: 'Runs the task once now and returns it.' } },
    async (request) => cron.runNow(request.params.id, request.params.agentId),
  );
  api.get(
    `${base}/:id/runs`,
    { schema: { tags, params: agentTaskParams, response: { 200: runsAnswer } } },
    async (request) => ({ data: await cron.runs(request.params.id, request.params.agentId) }),
  );
}
