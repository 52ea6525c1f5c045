// The one Tool interface behind built-in tools, rule-chain tools, sub-agent tools and MCP tools.

export type ToolType = 'builtin' | 'rulechain' | 'subagent' | 'mcp';

export interface ToolContext {
  signal: AbortSignal;
  agentId: string;
  /** Absolute, real (symlink-resolved) path of the agent's workspace folder. */
  workspaceDir: string;
  /** Folder of the global skills, read by the `skill` tool after the workspace's `skills/`. */
  globalSkillsDir?: string;
  /** The agent's memory and transcripts, for the memory tools (given by turns of a session). */
  memory?: MemoryAccess;
}

export interface MemoryHitView {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
}

export interface SessionHitView {
  sessionKey: string;
  messageId: number;
  role: string;
  score: number;
  snippet: string;
  at: string;
}

/** What the memory tools may do, bound to one agent and (for transcripts) one caller's scope. */
export interface MemoryAccess {
  search(query: string, limit: number): Promise<MemoryHitView[]>;
  get(path: string, from: number, lines: number): Promise<{ text: string; total: number }>;
  write(target: 'today' | 'memory', text: string): Promise<string>;
  searchSessions(query: string, limit: number): Promise<SessionHitView[]>;
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
