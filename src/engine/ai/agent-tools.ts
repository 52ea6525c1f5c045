// The tools of one ai/agent node, built from its `tools` configuration: built-ins, rule chains,
// sub-agents and MCP servers, all behind the Tool interface. Chain and agent tools run through the
// node's context at call time, so their targets are looked up when called, as `flow` does.
import { z } from 'zod';
import { AppError, errorMessage } from '../../core/errors.ts';
import { createBuiltinTool } from '../../tools/builtin.ts';
import { McpConnection } from '../../tools/mcp.ts';
import type { Tool, ToolContext, ToolType } from '../../tools/types.ts';
import { withAttribution } from '../../usage/attribution.ts';
import type { RuleChainDefinition } from '../dsl.ts';
import { newMessage } from '../message.ts';
import type { NodeContext, RunResult } from '../types.ts';

export const toolEntrySchema = z.object({
  type: z.enum(['builtin', 'rulechain', 'agent', 'mcp']),
  name: z.string().max(64).default(''),
  description: z.string().max(4000).optional(),
  targetId: z.string().max(64).optional(),
  config: z.record(z.string(), z.unknown()).default({}),
  timeout: z.int().positive().max(3_600_000).default(120_000),
});
export type ToolEntry = z.infer<typeof toolEntrySchema>;

/** A tool bound to a run: what the agent loop calls. */
export interface BoundTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  toolType: ToolType;
  timeoutMs: number;
  execute(args: Record<string, unknown>, context: ToolContext, node: NodeContext): Promise<string>;
}

const FUNCTION_NAME = /[^A-Za-z0-9_-]/g;

function toolName(name: string): string {
  return name.replace(FUNCTION_NAME, '_').slice(0, 64) || 'tool';
}

function resultText(result: RunResult): string {
  if (result.outcome === 'failure') return `error: ${result.error ?? 'the rule chain failed'}`;
  const texts = result.results.map((message) => message.data);
  return texts.length === 1 ? (texts[0] ?? '') : JSON.stringify(texts);
}

function fromTool(tool: Tool, timeoutMs: number, description?: string): BoundTool {
  return {
    name: toolName(tool.name),
    description: description ?? tool.description,
    parameters: tool.parameters,
    toolType: tool.toolType,
    timeoutMs,
    execute: (args, context) => tool.execute(args, context),
  };
}

export interface ToolSetDeps {
  chainDefinition: (id: string) => RuleChainDefinition | undefined;
}

/**
 * The tools of a node. MCP servers are connected on first use and listed once; `close` ends them.
 */
export class AgentToolSet {
  private readonly fixed: BoundTool[] = [];
  private readonly mcp: Array<{ connection: McpConnection; entry: ToolEntry }> = [];

  constructor(
    entries: ToolEntry[],
    private readonly deps: ToolSetDeps,
  ) {
    for (const entry of entries) {
      switch (entry.type) {
        case 'builtin':
          this.fixed.push(
            fromTool(createBuiltinTool(entry.name, entry.config), entry.timeout, entry.description),
          );
          break;
        case 'rulechain':
          this.fixed.push(this.chainTool(entry));
          break;
        case 'agent':
          this.fixed.push(this.agentTool(entry));
          break;
        case 'mcp': {
          const server = entry.config['server'];
          if (
            typeof server !== 'string' &&
            !(Array.isArray(server) && server.every((s) => typeof s === 'string'))
          ) {
            throw new AppError('invalid', 'tools: an mcp tool needs config.server (a URL or a command)');
          }
          this.mcp.push({
            connection: new McpConnection({ server: server as string | string[], timeoutMs: entry.timeout }),
            entry,
          });
          break;
        }
      }
    }
  }

  private target(entry: ToolEntry): string {
    if (!entry.targetId) throw new AppError('invalid', `tools: a ${entry.type} tool needs targetId`);
    return entry.targetId;
  }

  private chainTool(entry: ToolEntry): BoundTool {
    const targetId = this.target(entry);
    const deps = this.deps;
    return {
      name: toolName(entry.name || targetId),
      get description() {
        const info = deps.chainDefinition(targetId)?.ruleChain.additionalInfo as
          { description?: unknown } | undefined;
        return (
          entry.description ??
          (typeof info?.description === 'string' ? info.description : `Runs rule chain ${targetId}.`)
        );
      },
      get parameters() {
        const info = deps.chainDefinition(targetId)?.ruleChain.additionalInfo as
          { inputSchema?: unknown } | undefined;
        const schema = info?.inputSchema;
        return schema && typeof schema === 'object'
          ? (schema as Record<string, unknown>)
          : { type: 'object', properties: {} };
      },
      toolType: 'rulechain',
      timeoutMs: entry.timeout,
      async execute(args, _context, node) {
        return resultText(await node.runChain(targetId, newMessage(args)));
      },
    };
  }

  private agentTool(entry: ToolEntry): BoundTool {
    const targetId = this.target(entry);
    return {
      name: toolName(entry.name || targetId),
      description:
        entry.description ?? `Asks agent ${targetId} to handle a task; give it the whole task as input.`,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The task or question for the agent.' } },
        required: ['input'],
      },
      toolType: 'subagent',
      timeoutMs: entry.timeout,
      async execute(args, _context, node) {
        const input = typeof args['input'] === 'string' ? args['input'] : JSON.stringify(args);
        const message = newMessage(input, { dataType: 'TEXT' });
        return resultText(
          // A sub-agent works in its own workspace, with no shared history.
          // Its model calls are metered as the sub-agent's (same channel, account and user).
          await withAttribution({ agentId: targetId }, () =>
            node.runChain(targetId, message, { turn: { agentId: targetId }, isolated: true }),
          ),
        );
      },
    };
  }

  /** Every tool of the node; MCP servers are listed here on first use (a failed one is skipped). */
  async tools(onProblem: (text: string) => void): Promise<BoundTool[]> {
    const tools = [...this.fixed];
    for (const { connection, entry } of this.mcp) {
      try {
        for (const tool of await connection.tools()) tools.push(fromTool(tool, entry.timeout));
      } catch (error) {
        onProblem(`MCP server ${connection.label} is unavailable: ${errorMessage(error)}`);
      }
    }
    return tools;
  }

  async close(): Promise<void> {
    await Promise.all(this.mcp.map(({ connection }) => connection.close()));
  }
}
