// An agent's workspace files over REST: list, read, write, create, delete, rename, download.
// Statuses: 400 bad path (outside the workspace, a file where a folder is expected and back, the
// root as a delete or rename target, a bad newName), 404 unknown agent or missing entry, 409 the
// entry (or rename target) exists, 413 text read of a file over 5 MiB, 415 text read of a binary
// (NUL byte) or non-UTF-8 file; those two can still be downloaded.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ChainCatalog } from '../../chains/chain-catalog.ts';
import { idParam } from '../../http/params.ts';
import { WorkspaceService } from './workspace.service.ts';
import { deleted } from '../../http/answers.ts';

const workspacePath = z
  .string()
  .min(1, 'must not be empty')
  .max(4096)
  .meta({ description: 'Path relative to the workspace root' });
const params = z.object({ agentId: idParam });
const pathQuery = z.object({ path: workspacePath });
const listQuery = z.object({
  path: z.string().max(4096).default('').meta({ description: 'Folder relative to the workspace root' }),
});
const newName = z
  .string()
  .min(1, 'must not be empty')
  .max(255)
  .refine(
    (name) => name !== '.' && name !== '..' && !/[/\\\0]/.test(name),
    'must be a single file or folder name, without "/", "\\", NUL, "." or ".."',
  );
const entrySchema = z.object({
  name: z.string(),
  isDir: z.boolean(),
  size: z.number().int().optional().meta({ description: 'Files only' }),
  modTime: z.string().optional().meta({ description: 'Files only: ISO 8601 UTC' }),
});
const contentSchema = z.object({ content: z.string() });
const done = z.object({ success: z.boolean(), message: z.string() });

/** `attachment` with an ASCII fallback name and the exact UTF-8 name (RFC 6266, RFC 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function registerWorkspaceRoutes(
  app: FastifyInstance,
  chains: ChainCatalog,
  workspace: (agentId: string) => Promise<string>,
): void {
  const files = new WorkspaceService(chains, workspace);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workspace'];
  const base = '/api/v1/agents/:agentId/workspace';

  api.get(
    `${base}/entries`,
    { schema: { tags, params, querystring: listQuery, response: { 200: z.array(entrySchema) } } },
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
      return { success: true, message: `file "${request.query.path}" saved` };
    },
  );

  api.post(
    `${base}/files`,
    {
      schema: {
        tags,
        params,
        body: z.object({ path: workspacePath, content: z.string().default('') }),
        response: { 201: done },
      },
    },
    async (request, reply) => {
      await files.createFile(request.params.agentId, request.body.path, request.body.content);
      reply.code(201);
      return { success: true, message: `file "${request.body.path}" created` };
    },
  );

  api.post(
    `${base}/dirs`,
    { schema: { tags, params, body: z.object({ path: workspacePath }), response: { 201: done } } },
    async (request, reply) => {
      await files.createDir(request.params.agentId, request.body.path);
      reply.code(201);
      return { success: true, message: `folder "${request.body.path}" created` };
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
        body: z.object({ newName }),
        response: { 200: done },
      },
    },
    async (request) => {
      const { path } = request.query;
      await files.rename(request.params.agentId, path, request.body.newName);
      return { success: true, message: `"${path}" renamed to "${request.body.newName}"` };
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
