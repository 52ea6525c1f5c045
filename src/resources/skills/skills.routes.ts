// Skills over REST: agent skills under /agents/{agentId}/skills (local scope) and /skills with a
// scope (`global`, `local` with agentId, or `all` for lists and reads: local shadows global).
// Statuses: 400 bad name, body, scope or archive; 404 unknown agent or skill; 409 name taken;
// 413 upload over the size limit; 415 an upload that is not multipart/form-data.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, invalid } from '../../core/errors.ts';
import { deleted, successAnswer } from '../../http/answers.ts';
import { pageSchema, paginate, paginationQuery } from '../../http/pagination.ts';
import { agentParams } from '../agents/agents.schema.ts';
import {
  agentNameParams,
  copyBody,
  createBody,
  findQuery,
  globalCreateBody,
  globalUpdateBody,
  nameParams,
  placeQuery,
  skillList,
  skillSchema,
  updateBody,
} from './skills.schema.ts';
import type { SkillsService } from './skills.service.ts';

/** The zip and the text fields of a multipart upload. */
async function readUpload(
  request: FastifyRequest,
): Promise<{ archive: Buffer; fields: Record<string, string> }> {
  if (!request.isMultipart()) {
    throw new AppError(
      'unsupported-media',
      'send multipart/form-data with the zip archive in the part "file"',
    );
  }
  let archive: Buffer | undefined;
  const fields: Record<string, string> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (part.fieldname === 'file') archive = data;
    } else if (typeof part.value === 'string') {
      fields[part.fieldname] = part.value;
    }
  }
  if (!archive) throw invalid('multipart part "file" (the zip archive) is missing');
  return { archive, fields };
}

export function registerSkillRoutes(app: FastifyInstance, skills: SkillsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['skills'];
  const skillPage = pageSchema(skillSchema);

  // Agent skills: the local scope of the agent in the path.
  const base = '/agents/:agentId/skills';
  api.get(
    base,
    { schema: { tags, params: agentParams, querystring: paginationQuery, response: { 200: skillPage } } },
    async (request) => paginate(await skills.list('local', request.params.agentId), request.query),
  );
  api.get(
    `${base}/:name`,
    { schema: { tags, params: agentNameParams, response: { 200: skillSchema } } },
    async (request) => skills.get(request.params.name, 'local', request.params.agentId),
  );
  api.post(
    base,
    { schema: { tags, params: agentParams, body: createBody, response: { 201: skillSchema } } },
    async (request, reply) => {
      const skill = await skills.create({ scope: 'local', agentId: request.params.agentId }, request.body);
      return reply.code(201).send(skill);
    },
  );
  api.put(
    `${base}/:name`,
    { schema: { tags, params: agentNameParams, body: updateBody, response: { 200: skillSchema } } },
    async (request) =>
      skills.update({ scope: 'local', agentId: request.params.agentId }, request.params.name, request.body),
  );
  api.delete(
    `${base}/:name`,
    { schema: { tags, params: agentNameParams, response: { 200: successAnswer } } },
    async (request) => {
      await skills.remove({ scope: 'local', agentId: request.params.agentId }, request.params.name);
      return deleted(`skill "${request.params.name}"`);
    },
  );
  api.post(
    `${base}/upload`,
    {
      schema: {
        tags,
        params: agentParams,
        description: 'multipart/form-data; part `file` is a zip of skill folders or a single SKILL.md.',
        response: { 201: skillList },
      },
    },
    async (request, reply) => {
      skills.requireAgent(request.params.agentId);
      const { archive } = await readUpload(request);
      const installed = await skills.upload({ scope: 'local', agentId: request.params.agentId }, archive);
      return reply.code(201).send(installed);
    },
  );

  // Global skills, and any scope by query or body.
  api.get(
    '/skills',
    {
      schema: {
        tags,
        querystring: paginationQuery.extend(findQuery.shape),
        response: { 200: skillPage },
      },
    },
    async (request) => paginate(await skills.list(request.query.scope, request.query.agentId), request.query),
  );
  api.get(
    '/skills/:name',
    { schema: { tags, params: nameParams, querystring: findQuery, response: { 200: skillSchema } } },
    async (request) => skills.get(request.params.name, request.query.scope, request.query.agentId),
  );
  api.post(
    '/skills',
    { schema: { tags, body: globalCreateBody, response: { 201: skillSchema } } },
    async (request, reply) => {
      const { scope, agentId, ...skill } = request.body;
      const created = await skills.create({ scope, agentId }, skill);
      return reply.code(201).send(created);
    },
  );
  api.put(
    '/skills/:name',
    {
      schema: {
        tags,
        params: nameParams,
        querystring: placeQuery,
        body: globalUpdateBody,
        response: { 200: skillSchema },
      },
    },
    async (request) => {
      const { scope, agentId, ...changes } = request.body;
      const where = { scope: scope ?? request.query.scope, agentId: agentId ?? request.query.agentId };
      return skills.update(where, request.params.name, changes);
    },
  );
  api.delete(
    '/skills/:name',
    { schema: { tags, params: nameParams, querystring: placeQuery, response: { 200: successAnswer } } },
    async (request) => {
      await skills.remove(request.query, request.params.name);
      return deleted(`skill "${request.params.name}"`);
    },
  );
  api.post(
    '/skills/upload',
    {
      schema: {
        tags,
        description: 'multipart/form-data: `file` (zip), `scope` (global default, or local with `agentId`).',
        response: { 201: skillList },
      },
    },
    async (request, reply) => {
      const { archive, fields } = await readUpload(request);
      const where = placeQuery.safeParse({
        scope: fields['scope'] || undefined,
        agentId: fields['agentId'] || undefined,
      });
      if (!where.success) throw invalid('scope must be "global" or "local", and agentId a valid agent id');
      const installed = await skills.upload(where.data, archive);
      return reply.code(201).send(installed);
    },
  );
  api.post(
    '/skills/copy',
    {
      schema: {
        tags,
        description:
          'Copies a skill folder. Source: `name` in `scope` (all: local of agentId first, then global). ' +
          'Target: `targetScope`, `targetAgentId` (defaults to agentId) for local, `newName` (defaults to name).',
        body: copyBody,
        response: { 201: skillSchema },
      },
    },
    async (request, reply) => {
      const copied = await skills.copy(request.body);
      return reply.code(201).send(copied);
    },
  );
}
