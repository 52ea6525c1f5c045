// Cron tasks over REST: /cron and the agent-level variants under /agents/{agentId}/cron.
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
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
  const api = jsonRoutes(app, ['cron']);
  const runNow = 'Runs the task once now and returns it.';

  api.get('/cron', { querystring: taskListQuery }, async (request) => cron.list(request.query.agentId));
  // Registered before /cron/:id; a static segment wins over a parameter in fastify's router.
  api.get(
    '/cron/preview',
    {
      querystring: previewQuery,
      description:
        'The next fire times of a schedule (count, default 5, at most 50), in the server time zone.',
      answer: previewAnswer,
    },
    async (request) => cron.preview(request.query.schedule, request.query.count),
  );
  api.get('/cron/:id', { params: taskParams }, async (request) => cron.get(request.params.id));
  api.post('/cron', { body: taskBody }, async (request, reply) => {
    const task = await cron.create(request.body);
    return reply.code(201).send(task);
  });
  api.removal(
    '/cron/:id',
    taskParams,
    ({ id }) => cron.remove(id),
    ({ id }) => `cron task "${id}"`,
  );
  api.put('/cron/:id/toggle', { params: taskParams, body: toggleBody }, async (request) =>
    cron.toggle(request.params.id, request.body.disabled),
  );
  api.post('/cron/:id/run', { params: taskParams, description: runNow }, async (request) =>
    cron.runNow(request.params.id),
  );
  api.get(
    '/cron/:id/runs',
    { params: taskParams, description: 'The recent runs of a task, newest first.', answer: runsAnswer },
    async (request) => ({ data: await cron.runs(request.params.id) }),
  );

  const base = '/agents/:agentId/cron';
  api.get(base, { params: agentParams }, async (request) => cron.listFor(request.params.agentId));
  api.get(`${base}/:id`, { params: agentTaskParams }, async (request) =>
    cron.get(request.params.id, request.params.agentId),
  );
  api.post(base, { params: agentParams, body: agentTaskBody }, async (request, reply) => {
    const task = await cron.createFor(request.params.agentId, request.body);
    return reply.code(201).send(task);
  });
  api.removal(
    `${base}/:id`,
    agentTaskParams,
    ({ id, agentId }) => cron.remove(id, agentId),
    ({ id }) => `cron task "${id}"`,
  );
  api.put(`${base}/:id/toggle`, { params: agentTaskParams, body: toggleBody }, async (request) =>
    cron.toggle(request.params.id, request.body.disabled, request.params.agentId),
  );
  api.post(`${base}/:id/run`, { params: agentTaskParams, description: runNow }, async (request) =>
    cron.runNow(request.params.id, request.params.agentId),
  );
  api.get(`${base}/:id/runs`, { params: agentTaskParams, answer: runsAnswer }, async (request) => ({
    data: await cron.runs(request.params.id, request.params.agentId),
  }));
}
