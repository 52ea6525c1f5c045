import { basename } from 'node:path';
// The SDK is loaded on first connection: it weighs about 25 MB, and most agents use no MCP server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AppError } from '../core/errors.ts';
import type { Tool } from './types.ts';

export interface McpConnectionOptions {
  /** An http(s) URL (streamable HTTP), or a stdio command: one command line, or [command, ...args]. */
  server: string | string[];
  /** Time limit of one tool call, in ms (default 120000). */
  timeoutMs?: number;
  /** Time limit for starting the server and listing its tools, in ms (default 30000). */
  connectTimeoutMs?: number;
  /** Extra environment of a stdio server, over the SDK's safe defaults (PATH, HOME, USER, ...). */
  env?: Record<string, string>;
  /** Working folder of a stdio server. */
  cwd?: string;
  /** Headers sent to an HTTP server, such as Authorization. */
  headers?: Record<string, string>;
}

const STDERR_TAIL_CHARS = 4096;
/** JSON-RPC error code of an MCP request that timed out (ErrorCode.RequestTimeout in the SDK). */
const MCP_REQUEST_TIMEOUT = -32001;

/**
 * One MCP server, reached over stdio or streamable HTTP, whose tools become Tool objects. The
 * connection is opened on first use, shared by every call, and reopened if the server goes away.
 */
export class McpConnection {
  private client: Promise<Client> | undefined;
  private openClient: Client | undefined;
  private listed: Tool[] | undefined;
  private closed = false;
  private stderr = '';
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;

  constructor(private readonly options: McpConnectionOptions) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  }

  /** A name for messages that shows no arguments or query string, where secrets may hide. */
  get label(): string {
    const { server } = this.options;
    if (typeof server === 'string' && /^https?:\/\//iu.test(server)) {
      const url = new URL(server);
      return `${url.origin}${url.pathname}`;
    }
    const command = typeof server === 'string' ? splitCommandLine(server)[0] : server[0];
    return basename(command ?? 'mcp');
  }

  /** The last output a stdio server wrote to stderr, for diagnosing a failed start. */
  get stderrTail(): string {
    return this.stderr;
  }

  /** The server's tools, listed once and then cached; `refresh` lists them again. */
  async tools(options: { refresh?: boolean } = {}): Promise<Tool[]> {
    if (this.listed && !options.refresh) return this.listed;
    const client = await this.connect();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.connectTimeoutMs,
      });
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description ?? tool.title ?? '',
          parameters: tool.inputSchema,
          toolType: 'mcp',
          execute: (args, context) => this.callTool(tool.name, args, context.signal),
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.listed = tools;
    return tools;
  }

  /** Calls a tool; a result flagged isError comes back as text starting "error: ". */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const client = await this.connect();
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.timeoutMs,
      });
      const text = resultText(result);
      return result.isError === true ? `error: ${text}` : text;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if ((error as { code?: unknown }).code === MCP_REQUEST_TIMEOUT) {
        throw new AppError('timeout', `MCP tool "${name}" timed out after ${this.timeoutMs} ms`);
      }
      throw new AppError(
        'upstream',
        `MCP tool "${name}" on ${this.label} failed: ${(error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    if (client) await client.then((open) => open.close()).catch(() => undefined);
  }

  private connect(): Promise<Client> {
    if (this.closed)
      return Promise.reject(new AppError('unavailable', `MCP connection to ${this.label} is closed`));
    this.client ??= this.open().catch((error: unknown) => {
      this.client = undefined;
      throw new AppError(
        'unavailable',
        `MCP server ${this.label} could not be reached: ${(error as Error).message}`,
      );
    });
    return this.client;
  }

  private async open(): Promise<Client> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'agent-service', version: '0.1.0' });
    client.onclose = () => {
      // Forget a dead connection so the next call opens a new one.
      if (this.openClient === client) {
        this.openClient = undefined;
        this.client = undefined;
      }
    };
    await client.connect(await this.transport(), { timeout: this.connectTimeoutMs });
    this.openClient = client;
    return client;
  }

  private async transport(): Promise<Transport> {
    const { server } = this.options;
    if (typeof server === 'string' && /^https?:\/\//iu.test(server)) {
      const { StreamableHTTPClientTransport } =
        await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(server), {
        ...(this.options.headers ? { requestInit: { headers: this.options.headers } } : {}),
      });
    }
    const [command, ...args] = typeof server === 'string' ? splitCommandLine(server) : server;
    if (command === undefined || command === '') throw new AppError('invalid', 'MCP server command is empty');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command,
      args,
      stderr: 'pipe',
      ...(this.options.env ? { env: this.options.env } : {}),
      ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
    });
    // The tail describes the latest start only.
    this.stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** The text parts of a tool result joined by newlines; other parts are named, not dropped silently. */
function resultText(result: CallResult): string {
  if (!Array.isArray(result.content))
    return JSON.stringify(result.toolResult ?? result.structuredContent ?? null);
  const parts = result.content.map((item) => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'image':
      case 'audio':
        return `[${item.type}: ${item.mimeType}]`;
      case 'resource':
        return 'text' in item.resource && typeof item.resource.text === 'string'
          ? item.resource.text
          : `[resource: ${item.resource.uri}]`;
      case 'resource_link':
        return `[resource: ${item.uri}]`;
      default:
        return '';
    }
  });
  const text = parts.filter((part) => part !== '').join('\n');
  if (text === '' && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return text;
}

/** Splits a command line into words, honouring single quotes, double quotes and backslashes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index] as string;
    if (quote) {
      if (character === quote) quote = undefined;
      else if (character === '\\' && quote === '"' && index + 1 < line.length) current += line[++index];
      else current += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      inWord = true;
    } else if (character === '\\' && index + 1 < line.length) {
      current += line[++index];
      inWord = true;
    } else if (/\s/u.test(character)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += character;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
