// What an agent can use as tools: the built-in ones, and every loaded chain (agents as sub-agents,
// other chains as rule-chain tools); the built-in tools' configuration forms; the agent template.
import { agentTemplate } from '../../chains/agent-template.ts';
import type { ChainCatalog } from '../../chains/chain-catalog.ts';
import {
  BUILTIN_TOOL_NAMES,
  builtinToolForms,
  createBuiltinTool,
  type ToolForm,
} from '../../tools/builtin.ts';
import type { ToolListing } from './tools.schema.ts';

export class ToolsService {
  constructor(private readonly chains: ChainCatalog) {}

  list(): ToolListing[] {
    const tools: ToolListing[] = BUILTIN_TOOL_NAMES.map((name) => {
      const tool = createBuiltinTool(name, name === 'bash' ? { enabled: true } : {});
      return { name, type: 'builtin', description: tool.description, parameters: tool.parameters };
    });
    for (const view of this.chains.list({ kind: 'any' }, { loaded: true })) {
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
  }

  forms(): ToolForm[] {
    return builtinToolForms();
  }

  /** A complete agent that POST /agents accepts as is. */
  agentTemplate(): Record<string, unknown> {
    return agentTemplate('my-agent', 'My agent');
  }
}
