// What the MCP server offers a caller: each agent it may use as a tool ({message, sessionId?}), and
// each loaded rule chain marked `additionalInfo.mcp: true` as a tool taking the chain's inputSchema.
// Calls run the same turns (sessions, tools, auth, budgets) as chat completions.
import { AGENT_CATEGORY, type ChainCatalog, type ChainView } from '../chains/chain-catalog.ts';
import { mayUseAgent } from '../auth/agent-access.ts';
import type { Principal } from '../auth/auth-service.ts';
import { AppError, isAppError } from '../core/errors.ts';
import { apiSession } from '../chat/chat-request.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import type { TurnEvent } from '../turns/turn-events.ts';

/** A tool as tools/list shows it. */
export interface McpToolInfo {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** A tools/call result (CallToolResult). */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface McpCallOptions {
  signal: AbortSignal;
  /** Called for each step of a running turn (text, tool calls), when the client asked for progress. */
  progress?: (message: string) => void;
}

/** Thrown for a call the protocol refuses (unknown tool, bad arguments): a JSON-RPC error, not a result. */
export class McpCallError extends Error {}

const MAX_MESSAGE_CHARS = 1_000_000;
/** As the chat endpoint's sessionId. */
const MAX_SESSION_ID = 200;

const AGENT_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The message or task for the agent.' },
    sessionId: {
      type: 'string',
      description:
        'Continue a conversation: calls with the same sessionId share history (the same sessions as the chat endpoint). Omit for a one-off call.',
    },
  },
  required: ['message'],
  additionalProperties: false,
};

const AGENT_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    agentId: { type: 'string' },
    sessionId: { type: 'string' },
    usage: {
      type: 'object',
      properties: {
        promptTokens: { type: 'number' },
        completionTokens: { type: 'number' },
        totalTokens: { type: 'number' },
      },
    },
  },
  required: ['answer', 'agentId'],
};

function additionalInfo(view: ChainView): Record<string, unknown> {
  const info = view.ruleChain['additionalInfo'];
  return info && typeof info === 'object' ? (info as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function chainId(view: ChainView): string {
  return String(view.ruleChain['id']);
}

function chainName(view: ChainView): string {
  return text(view.ruleChain['name']) ?? chainId(view);
}

function isMcpChain(view: ChainView): boolean {
  const info = additionalInfo(view);
  return info['mcp'] === true && info['category'] !== AGENT_CATEGORY && view.status.loaded;
}

/** A marked chain belongs to an agent (its rule chains), or is global: only unrestricted callers use those. */
function mayUseChain(principal: Principal | undefined, view: ChainView): boolean {
  const owner = view.status.agentId;
  if (owner !== undefined) return mayUseAgent(principal, owner);
  return principal?.kind !== 'account' || principal.agents === undefined;
}

function describeStep(event: TurnEvent): string | undefined {
  switch (event.type) {
    case 'text-delta':
      return event.text;
    case 'tool-call-start':
      return `calling tool ${event.toolCallName}`;
    case 'tool-call-result':
      return `tool ${event.toolCallName} finished`;
    case 'usage':
    case 'done':
    case 'error':
      return undefined;
  }
}

export class McpTools {
  constructor(
    private readonly turns: TurnRunner,
    private readonly chains: ChainCatalog,
  ) {}

  list(principal: Principal | undefined): McpToolInfo[] {
    const tools: McpToolInfo[] = [];
    for (const view of this.chains.list({ kind: 'agent' })) {
      const id = chainId(view);
      if (!view.status.loaded || !mayUseAgent(principal, id)) continue;
      tools.push({
        name: id,
        title: chainName(view),
        description: text(additionalInfo(view)['description']) ?? `Talk to the agent "${chainName(view)}".`,
        inputSchema: AGENT_INPUT_SCHEMA,
        outputSchema: AGENT_OUTPUT_SCHEMA,
        annotations: { readOnlyHint: false, openWorldHint: true },
      });
    }
    for (const view of this.chains.list({ kind: 'any' })) {
      if (!isMcpChain(view) || !mayUseChain(principal, view)) continue;
      const info = additionalInfo(view);
      const schema = info['inputSchema'];
      tools.push({
        name: chainId(view),
        title: chainName(view),
        description: text(info['description']) ?? `Runs the rule chain "${chainName(view)}".`,
        inputSchema:
          schema && typeof schema === 'object' && (schema as { type?: unknown }).type === 'object'
            ? (schema as Record<string, unknown>)
            : { type: 'object', properties: {} },
      });
    }
    return tools;
  }

  async call(
    principal: Principal | undefined,
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpToolResult> {
    const view = this.find(name);
    if (!view) throw new McpCallError(`unknown tool "${name}"`);
    const isAgent = additionalInfo(view)['category'] === AGENT_CATEGORY;
    if (isAgent ? !mayUseAgent(principal, name) : !isMcpChain(view) || !mayUseChain(principal, view))
      throw new McpCallError(`unknown tool "${name}"`);
    try {
      return isAgent
        ? await this.callAgent(principal, name, args, options)
        : await this.callChain(name, args, options);
    } catch (error) {
      if (error instanceof McpCallError) throw error;
      // A failed turn is a tool result the model can read, never our internals.
      const message = isAppError(error) ? error.message : 'internal error';
      return { content: [{ type: 'text', text: message }], isError: true };
    }
  }

  private find(name: string): ChainView | undefined {
    try {
      return this.chains.get(name, { kind: 'any' });
    } catch {
      return undefined;
    }
  }

  private async callAgent(
    principal: Principal | undefined,
    agentId: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpToolResult> {
    const { message, sessionId } = args;
    if (typeof message !== 'string') throw new McpCallError('message: a string is required');
    if (message.length > MAX_MESSAGE_CHARS)
      throw new McpCallError(`message: at most ${MAX_MESSAGE_CHARS} characters`);
    if (
      sessionId !== undefined &&
      (typeof sessionId !== 'string' || sessionId === '' || sessionId.length > MAX_SESSION_ID)
    )
      throw new McpCallError(`sessionId: a string of 1-${MAX_SESSION_ID} characters`);
    const unknownKeys = Object.keys(args).filter((key) => key !== 'message' && key !== 'sessionId');
    if (unknownKeys.length > 0) throw new McpCallError(`unknown argument "${unknownKeys[0]}"`);
    this.turns.checkAgent(agentId);
    const input = {
      agentId,
      input: message,
      metadata: { channel: 'mcp', agentId, ...(sessionId ? { sessionId } : {}) },
      ...(sessionId ? { session: apiSession(agentId, sessionId, principal) } : {}),
      signal: options.signal,
    };
    let output;
    if (options.progress) {
      for await (const event of this.turns.run(input)) {
        if (event.type === 'error') throw event.error;
        if (event.type === 'done') {
          output = event;
          break;
        }
        const step = describeStep(event);
        if (step !== undefined) options.progress(step);
      }
      if (!output) throw new AppError('unavailable', 'the turn was stopped');
    } else {
      output = await this.turns.complete(input);
    }
    const structured: Record<string, unknown> = { answer: output.text, agentId };
    if (sessionId) structured['sessionId'] = sessionId;
    if (output.usage) structured['usage'] = output.usage;
    return { content: [{ type: 'text', text: output.text }], structuredContent: structured };
  }

  private async callChain(
    id: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpToolResult> {
    const result = await this.chains.execute(id, args, { channel: 'mcp' }, { signal: options.signal });
    if (result.outcome === 'failure')
      return {
        content: [{ type: 'text', text: `error: ${result.error ?? 'the rule chain failed'}` }],
        isError: true,
      };
    const data = result.results.map((message) => message.data);
    return {
      content: [{ type: 'text', text: data.length === 1 ? (data[0] ?? '') : JSON.stringify(data) }],
      structuredContent: { results: data.map(parseMaybe) },
    };
  }
}

function parseMaybe(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}
