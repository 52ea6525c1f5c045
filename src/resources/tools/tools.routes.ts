// GET /tools (what an agent can use), GET /tools/forms (built-in tool configuration forms) and
// GET /agent-template (a complete agent that POST /agents accepts as is).
import type { FastifyInstance } from 'fastify';
import { createBuiltinTool, builtinToolForms, BUILTIN_TOOL_NAMES } from '../../tools/builtin.ts';
import { agentTemplate } from '../../chains/agent-template.ts';
import type { ChainCatalog } from '../../chains/chain-catalog.ts';

interface ToolListing {
  name: string;
  type: 'builtin' | 'rulechain' | 'subagent';
  description: string;
  parameters: Record<string, unknown>;
  targetId?: string;
}

export function registerToolRoutes(app: FastifyInstance, chains: ChainCatalog): void {
  const tags = ['tools'];
  app.get('/api/v1/tools', { schema: { tags } }, async () => {
    const tools: ToolListing[] = BUILTIN_TOOL_NAMES.map((name) => {
      const tool = createBuiltinTool(name, name === 'bash' ? { enabled: true } : {});
      return { name, type: 'builtin', description: tool.description, parameters: tool.parameters };
    });
    for (const view of chains.list({ kind: 'any' }, { loaded: true })) {
      const chain = view.ruleChain as {
        id: string;
        name?: string;
        additionalInfo?: { description?: unknown; inputSchema?: unknown; category?: unknown };
      };
      const info = chain.additionalInfo ?? {};
      const description = typeof info.description === 'string' ? info.description : (chain.name ?? chain.id);
      if (info.category === 'agents') {
        tools.push({
          name: chain.id,
          type: 'subagent',
          targetId: chain.id,
          description,
          parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
        });
      } else {
        const schema =
          info.inputSchema && typeof info.inputSchema === 'object'
            ? (info.inputSchema as Record<string, unknown>)
            : { type: 'object', properties: {} };
        tools.push({
          name: chain.id,
          type: 'rulechain',
          targetId: chain.id,
          description,
          parameters: schema,
        });
      }
    }
    return tools;
  });
  app.get('/api/v1/tools/forms', { schema: { tags } }, async () => builtinToolForms());
  app.get('/api/v1/agent-template', { schema: { tags } }, async () => agentTemplate('my-agent', 'My agent'));
}
