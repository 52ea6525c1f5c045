// The tools of one ai/agent node, built from its `tools` configuration: built-ins, rule chains,
// sub-agents and MCP servers, all behind the Tool interface. Chain and agent tools run through the
// node's context at call time, so their targets are looked up when called, as `flow` does.
import { z } from 'zod';
import { AppError, errorMessage } from '../../core/errors.ts';
import { createBuiltinTool } from '../../tools/builtin.ts';
import { McpConnection, type McpConnectionOptions } from '../../tools/mcp.ts';
import { a2aTool } from './a2a-tool.ts';
import { TASK_PARAMETERS, taskDescription, taskInput } from './subagent-task.ts';
import type { Tool, ToolContext, ToolType } from '../../tools/types.ts';
import { reattributed } from '../../model-providers/caller.ts';
import type { RuleChainDefinition } from '../dsl.ts';
import { newMessage } from '../message.ts';
import type { NodeContext, RunResult } from '../types.ts';

export const toolEntrySchema = z.object({
  type: z.enum(['builtin', 'rulechain', 'agent', 'mcp', 'a2a']).meta({
    label: 'Kind',
    description: 'builtin (read, write, bash...), rulechain, agent (a sub-agent), mcp or a2a.',
  }),
  name: z.string().max(64).default('').meta({
    label: 'Name',
    description: 'The tool name the model sees (a built-in: its name); empty: from the target.',
  }),
  description: z
    .string()
    .max(4000)
    .optional()
    .meta({ label: 'Description', description: 'What the model is told the tool does.' }),
  targetId: z
    .string()
    .max(64)
    .optional()
    .meta({ label: 'Target', description: 'The rule chain, agent, MCP server or A2A agent it calls.' }),
  config: z
    .record(z.string(), z.unknown())
    .default({})
    .meta({ label: 'Settings', description: "The kind's own settings (an MCP command or URL, say)." }),
  timeout: z
    .int()
    .positive()
    .max(3_600_000)
    .default(120_000)
    .meta({ label: 'Timeout (ms)', description: 'How long one call may take.' }),
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

interface McpServer {
  connection: McpConnection;
  entry: ToolEntry;
  /** Why the last attempt to start or list the server failed; undefined once it works. */
  problem: string | undefined;
}

const stringRecord = z.record(z.string(), z.string());
const mcpConfigSchema = z.object({
  server: z.union([z.string().min(1), z.array(z.string()).min(1)], {
    error: 'tools: an mcp tool needs config.server (a URL or a command)',
  }),
  env: stringRecord.optional(),
  headers: stringRecord.optional(),
  cwd: z.string().optional(),
  connectTimeout: z.int().positive().max(600_000).optional(),
});

/** A server's connection settings from an mcp tool entry: `server`, `env`, `headers`, `cwd`. */
function mcpOptions(entry: ToolEntry): McpConnectionOptions {
  const parsed = mcpConfigSchema.safeParse(entry.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `tools: mcp config.${issue.path.join('.')}: ` : '';
    throw new AppError('invalid', `${where}${issue?.message ?? 'invalid mcp tool config'}`);
  }
  const { server, env, headers, cwd, connectTimeout } = parsed.data;
  return {
    server,
    timeoutMs: entry.timeout,
    ...(env ? { env } : {}),
    ...(headers ? { headers } : {}),
    ...(cwd ? { cwd } : {}),
    ...(connectTimeout ? { connectTimeoutMs: connectTimeout } : {}),
  };
}

/** The text with the values of the entry's env and headers (its secrets) replaced by ***. */
function hideConfigSecrets(text: string, entry: ToolEntry): string {
  const values = [entry.config['env'], entry.config['headers']].flatMap((record) =>
    record && typeof record === 'object' ? Object.values(record as Record<string, unknown>) : [],
  );
  let out = text;
  for (const value of values)
    if (typeof value === 'string' && value.length >= 4) out = out.split(value).join('***');
  return out;
}

export interface ToolSetDeps {
  chainDefinition: (id: string) => RuleChainDefinition | undefined;
  /** For an a2a tool's apiKey template: `global` with secrets, and the chain's vars. */
  globals?: () => Record<string, unknown>;
  vars?: Record<string, string>;
}

/**
 * The tools of a node. MCP servers are connected on first use and listed once; `close` ends them.
 */
export class AgentToolSet {
  private readonly fixed: BoundTool[] = [];
  private readonly mcp: McpServer[] = [];

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
        case 'a2a':
          this.fixed.push(a2aTool(entry, toolName(entry.name || 'remote_agent'), deps));
          break;
        case 'mcp':
          this.mcp.push({ connection: new McpConnection(mcpOptions(entry)), entry, problem: undefined });
          break;
      }
    }
  }

  private target(entry: ToolEntry): string {
    if (!entry.targetId)
      throw new AppError(
        'invalid',
        `tools: ${entry.type === 'agent' ? 'an agent' : 'a rulechain'} tool needs targetId`,
      );
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
      description: entry.description ?? taskDescription(`agent ${targetId}`),
      parameters: TASK_PARAMETERS,
      toolType: 'subagent',
      timeoutMs: entry.timeout,
      async execute(args, _context, node) {
        const message = newMessage(taskInput(args), { dataType: 'TEXT' });
        return resultText(
          // A sub-agent works in its own workspace, with no shared history.
          // Its model calls are metered as the sub-agent's (same channel, account and user).
          await node.runChain(targetId, message, {
            turn: { agentId: targetId, caller: reattributed(node.turn.caller, { agentId: targetId }) },
            isolated: true,
          }),
        );
      },
    };
  }

  /**
   * Every tool of the node; MCP servers are listed here on first use. A server that fails is left out
   * of this turn, reported through `onProblem` (once per new failure) and shown by `problems()` until
   * it works again.
   */
  async tools(onProblem: (text: string) => void): Promise<BoundTool[]> {
    const tools = [...this.fixed];
    const listed = await Promise.all(this.mcp.map((server) => this.listServer(server, onProblem)));
    for (const [index, server] of this.mcp.entries())
      for (const tool of listed[index] ?? []) tools.push(fromTool(tool, server.entry.timeout));
    return tools;
  }

  /** Connects every MCP server now, so one that cannot start is known before the first turn. */
  probe(onProblem: (text: string) => void): Promise<void> {
    return Promise.all(this.mcp.map((server) => this.listServer(server, onProblem))).then(() => undefined);
  }

  /** The MCP servers that failed on their last attempt, in words. */
  problems(): string[] {
    return this.mcp.flatMap((server) => (server.problem ? [server.problem] : []));
  }

  private async listServer(server: McpServer, onProblem: (text: string) => void): Promise<Tool[]> {
    try {
      const tools = await server.connection.tools();
      server.problem = undefined;
      return tools;
    } catch (error) {
      // Let the last stderr output of a server that just exited arrive before it is quoted.
      await new Promise((resolve) => setImmediate(resolve));
      const stderr = server.connection.stderrTail.trim().split('\n').slice(-3).join(' | ');
      const problem = hideConfigSecrets(
        `MCP tool "${server.entry.name || server.connection.label}" is unavailable: ${errorMessage(error)}` +
          (stderr ? ` (stderr: ${stderr})` : ''),
        server.entry,
      );
      if (problem !== server.problem) onProblem(problem);
      server.problem = problem;
      return [];
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.mcp.map(({ connection }) => connection.close()));
  }
}
