// An agent's workspace files over REST: list, read, write, create, delete, rename, download.
// Statuses: 400 bad path (outside the workspace, a file where a folder is expected and back, the
// root as a delete or rename target, a bad newName), 404 unknown agent or missing entry, 409 the
// entry (or rename target) exists, 413 text read of a file over 5 MiB, 415 text read of a binary
// (NUL byte) or non-UTF-8 file; those two can still be downloaded.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, succeeded } from '../../http/answers.ts';
import { agentParams as params } from '../agents/agents.schema.ts';
import {
  contentSchema,
  createDirBody,
  createFileBody,
  done,
  entryList,
  listQuery,
  pathQuery,
  renameBody,
} from './workspace.schema.ts';
import type { WorkspaceService } from './workspace.service.ts';

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266, RFC 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function registerWorkspaceRoutes(app: FastifyInstance, files: WorkspaceService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workspace'];
  const base = '/agents/:agentId/workspace';

  api.get(
    `${base}/entries`,
    { schema: { tags, params, querystring: listQuery, response: { 200: entryList } } },
    async (request) => files.list(request.params.agentId, request.query.path),
  );

  api.get(
    `${base}/file`,
    { schema: { tags, params, querystring: pathQuery, response: { 200: contentSchema } } },
    async (request) => ({ content: await files.readText(request.params.agentId, request.query.path) }),
  );

  api.put(
    `${base}/file`,
    { schema: { tags, params, querystring: pathQuery, body: contentSchema, response: { 200: done } } },
    async (request) => {
      await files.update(request.params.agentId, request.query.path, request.body.content);
      return succeeded(`file "${request.query.path}" saved`);
    },
  );

  api.post(
    `${base}/files`,
    {
      schema: {
        tags,
        params,
        body: createFileBody,
        response: { 201: done },
      },
    },
    async (request, reply) => {
      await files.createFile(request.params.agentId, request.body.path, request.body.content);
      reply.code(201);
      return succeeded(`file "${request.body.path}" created`);
    },
  );

  api.post(
    `${base}/dirs`,
    { schema: { tags, params, body: createDirBody, response: { 201: done } } },
    async (request, reply) => {
      await files.createDir(request.params.agentId, request.body.path);
      reply.code(201);
      return succeeded(`folder "${request.body.path}" created`);
    },
  );

  api.delete(
    `${base}/entry`,
    { schema: { tags, params, querystring: pathQuery, response: { 200: done } } },
    async (request) => {
      await files.remove(request.params.agentId, request.query.path);
      return deleted(`"${request.query.path}"`);
    },
  );

  api.patch(
    `${base}/rename`,
    {
      schema: {
        tags,
        params,
        querystring: pathQuery,
        body: renameBody,
        response: { 200: done },
      },
    },
    async (request) => {
      const { path } = request.query;
      await files.rename(request.params.agentId, path, request.body.newName);
      return succeeded(`"${path}" renamed to "${request.body.newName}"`);
    },
  );

  api.get(
    `${base}/download`,
    {
      schema: {
        tags,
        params,
        querystring: pathQuery,
        description: 'The file as an attachment (application/octet-stream), streamed.',
      },
    },
    async (request, reply) => {
      const file = await files.download(request.params.agentId, request.query.path);
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(file.size))
        .header('content-disposition', contentDisposition(file.name))
        .header('x-content-type-options', 'nosniff')
        .send(file.stream);
    },
  );
}
