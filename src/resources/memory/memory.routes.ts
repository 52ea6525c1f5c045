// GET /agents/{agentId}/memory/search and /memory/files: an agent's memory (MEMORY.md and the
// dated notes in memory/). Memory belongs to the agent, not to one caller, so users only.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { memoryFilesAnswer, memoryParams, memorySearchAnswer, memorySearchQuery } from './memory.schema.ts';
import type { MemoryService } from './memory.service.ts';

export function registerMemoryRoutes(app: FastifyInstance, memory: MemoryService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['memory'];

  api.get(
    '/agents/:agentId/memory/search',
    {
      schema: {
        tags,
        summary: "Keyword search over the agent's memory files",
        description:
          'BM25 keyword search (with trigrams for Chinese, Japanese and Korean) over MEMORY.md and memory/*.md, newer facts first among equals; nothing under the relevance threshold. Files changed on disk are searchable within 2 seconds.',
        params: memoryParams,
        querystring: memorySearchQuery,
        response: { 200: memorySearchAnswer },
      },
    },
    async (request) => memory.search(request.params.agentId, request.query),
  );
  api.get(
    '/agents/:agentId/memory/files',
    {
      schema: {
        tags,
        summary: "The agent's memory files",
        params: memoryParams,
        response: { 200: memoryFilesAnswer },
      },
    },
    async (request) => memory.files(request.params.agentId),
  );
}
