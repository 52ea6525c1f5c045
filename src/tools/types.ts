// The one Tool interface behind built-in tools, rule-chain tools, sub-agent tools and MCP tools.

export type ToolType = 'builtin' | 'rulechain' | 'subagent' | 'mcp';

export interface ToolContext {
  signal: AbortSignal;
  agentId: string;
  /** Absolute, real (symlink-resolved) path of the agent's workspace folder. */
  workspaceDir: string;
  /** Folder of the global skills, read by the `skill` tool after the workspace's `skills/`. */
  globalSkillsDir?: string;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (type: object) of the arguments. */
  readonly parameters: Record<string, unknown>;
  readonly toolType: ToolType;
  /** Runs the tool. Returns the text given back to the model; throws AppError on refusal. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<string>;
}
