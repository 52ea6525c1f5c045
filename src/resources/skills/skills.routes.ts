// Skills over REST: agent skills under /agents/{agentId}/skills (local scope) and /skills with a
// scope (`global`, `local` with agentId, or `all` for lists and reads: local shadows global).
// Statuses: 400 bad name, body, scope or archive; 404 unknown agent or skill; 409 name taken;
// 413 upload over the size limit; 415 an upload that is not multipart/form-data.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, invalid } from '../../core/errors.ts';
import { paginate, paginationQuery, pageSchema } from '../../http/pagination.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_SKILL_BYTES, SKILL_NAME } from '../../skills/skill-store.ts';
import { idParam } from '../../http/params.ts';
import type { SkillPlace, SkillScope, SkillService } from './skills.service.ts';
import { deleted } from '../../http/answers.ts';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

const skillName = z.string().regex(SKILL_NAME, 'must be 1-64 letters, digits, "-" or "_"');
const description = z.string().max(MAX_DESCRIPTION_LENGTH);
const content = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_SKILL_BYTES)
  .meta({ description: 'Markdown instructions (SKILL.md without its front matter)' });
const targetScope = z.enum(['global', 'local']);
const listScope = z.enum(['all', 'global', 'local']);
const skillSchema = z.object({
  name: z.string(),
  description: z.string(),
  content: z.string(),
  scope: targetScope,
});
const done = z.object({ success: z.boolean(), message: z.string() });
const nameParams = z.object({ name: skillName });
const agentParams = z.object({ agentId: idParam });
const agentNameParams = z.object({ agentId: idParam, name: skillName });
const createBody = z.object({ name: skillName, description: description.default(''), content });
const updateBody = z.object({ description: description.optional(), content: content.optional() });
const placeQuery = z.object({ scope: targetScope.optional(), agentId: idParam.optional() });

/** An explicit scope wins; otherwise local when an agent is named, else global. */
function place(scope: SkillScope | undefined, agentId: string | undefined): SkillPlace {
  const resolved = scope ?? (agentId ? 'local' : 'global');
  if (resolved === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
  return { scope: resolved, agentId };
}

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

export function registerSkillRoutes(app: FastifyInstance, skills: SkillService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['skills'];

  // Agent skills: the local scope of the agent in the path.
  const base = '/api/v1/agents/:agentId/skills';
  api.get(
    base,
    {
      schema: {
        tags,
        params: agentParams,
        querystring: paginationQuery,
        response: { 200: pageSchema(skillSchema) },
      },
    },
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
    { schema: { tags, params: agentNameParams, response: { 200: done } } },
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
        response: { 201: z.array(skillSchema) },
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
    '/api/v1/skills',
    {
      schema: {
        tags,
        querystring: paginationQuery.extend({ scope: listScope.default('all'), agentId: idParam.optional() }),
        response: { 200: pageSchema(skillSchema) },
      },
    },
    async (request) => {
      const { scope, agentId } = request.query;
      if (scope === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
      return paginate(await skills.list(scope, agentId), request.query);
    },
  );
  api.get(
    '/api/v1/skills/:name',
    {
      schema: {
        tags,
        params: nameParams,
        querystring: z.object({ scope: listScope.default('all'), agentId: idParam.optional() }),
        response: { 200: skillSchema },
      },
    },
    async (request) => {
      const { scope, agentId } = request.query;
      if (scope === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
      return skills.get(request.params.name, scope, agentId);
    },
  );
  api.post(
    '/api/v1/skills',
    {
      schema: {
        tags,
        body: createBody.extend({ scope: targetScope.optional(), agentId: idParam.optional() }),
        response: { 201: skillSchema },
      },
    },
    async (request, reply) => {
      const { scope, agentId, ...skill } = request.body;
      const created = await skills.create(place(scope, agentId), skill);
      return reply.code(201).send(created);
    },
  );
  api.put(
    '/api/v1/skills/:name',
    {
      schema: {
        tags,
        params: nameParams,
        querystring: placeQuery,
        body: updateBody.extend({
          name: skillName.optional(),
          scope: targetScope.optional(),
          agentId: idParam.optional(),
        }),
        response: { 200: skillSchema },
      },
    },
    async (request) => {
      const { name, scope, agentId, ...changes } = request.body;
      if (name !== undefined && name !== request.params.name) {
        throw invalid(
          'body.name: a skill cannot be renamed by PUT; use POST /skills/copy and delete the old one',
        );
      }
      const where = place(scope ?? request.query.scope, agentId ?? request.query.agentId);
      return skills.update(where, request.params.name, changes);
    },
  );
  api.delete(
    '/api/v1/skills/:name',
    { schema: { tags, params: nameParams, querystring: placeQuery, response: { 200: done } } },
    async (request) => {
      await skills.remove(place(request.query.scope, request.query.agentId), request.params.name);
      return deleted(`skill "${request.params.name}"`);
    },
  );
  api.post(
    '/api/v1/skills/upload',
    {
      schema: {
        tags,
        description: 'multipart/form-data: `file` (zip), `scope` (global default, or local with `agentId`).',
        response: { 201: z.array(skillSchema) },
      },
    },
    async (request, reply) => {
      const { archive, fields } = await readUpload(request);
      const parsed = placeQuery.safeParse({
        scope: fields['scope'] || undefined,
        agentId: fields['agentId'] || undefined,
      });
      if (!parsed.success) throw invalid('scope must be "global" or "local", and agentId a valid agent id');
      const installed = await skills.upload(place(parsed.data.scope, parsed.data.agentId), archive);
      return reply.code(201).send(installed);
    },
  );
  api.post(
    '/api/v1/skills/copy',
    {
      schema: {
        tags,
        description:
          'Copies a skill folder. Source: `name` in `scope` (all: local of agentId first, then global). ' +
          'Target: `targetScope`, `targetAgentId` (defaults to agentId) for local, `newName` (defaults to name).',
        body: z.object({
          name: skillName,
          scope: listScope.default('all'),
          agentId: idParam.optional(),
          targetScope,
          targetAgentId: idParam.optional(),
          newName: skillName.optional(),
        }),
        response: { 201: skillSchema },
      },
    },
    async (request, reply) => {
      const { name, scope, agentId, targetAgentId = agentId, newName = name } = request.body;
      if (scope === 'local' && !agentId) throw invalid('agentId is required when scope is "local"');
      if (request.body.targetScope === 'local' && !targetAgentId) {
        throw invalid('targetAgentId (or agentId) is required when targetScope is "local"');
      }
      const copied = await skills.copy(
        { scope, agentId },
        name,
        { scope: request.body.targetScope, agentId: targetAgentId },
        newName,
      );
      return reply.code(201).send(copied);
    },
  );
}
