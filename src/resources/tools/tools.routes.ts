// GET /tools (what an agent can use), GET /tools/forms (built-in tool configuration forms) and
// GET /agent-template (a complete agent that POST /agents accepts as is).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { toolListing } from './tools.schema.ts';
import type { ToolsService } from './tools.service.ts';

export function registerToolRoutes(app: FastifyInstance, tools: ToolsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['tools'];
  api.get('/tools', { schema: { tags, response: { 200: toolListing.array() } } }, async () => tools.list());
  api.get('/tools/forms', { schema: { tags } }, async () => tools.forms());
  api.get('/agent-template', { schema: { tags } }, async () => tools.agentTemplate());
}
