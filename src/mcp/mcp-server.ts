// The MCP server over streamable HTTP (the SDK's transport, mounted by mcp.routes.ts). An
// `initialize` without Mcp-Session-Id opens a stateful session (kept in this process, bound to the
// caller who opened it); any other request without one is served statelessly by a server of its
// own. Cancellation: notifications/cancelled, and the HTTP request closing, abort the running turn.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Principal } from '../auth/auth-service.ts';
import { McpCallError, type McpTools } from './mcp-tools.ts';

export interface McpServerOptions {
  name: string;
  version: string;
  /** A session unused this long is closed (default 30 minutes). */
  idleMs?: number;
  /** Sessions kept at most; past it the least recently used one is closed (default 1000). */
  maxSessions?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
  lastSeen: number;
  /** Running tools/call requests by JSON-RPC id, aborted when their HTTP request closes. */
  running: Map<string | number, AbortController>;
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>;

// The SDK is loaded on the first MCP request: it weighs megabytes, and most servers never see one.
async function loadSdk() {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { ...server, ...transport, ...types };
}

function ownerOf(principal: Principal | undefined): string {
  if (!principal) return 'anonymous';
  return principal.kind === 'user' ? `user:${principal.username}` : `account:${principal.accountId}`;
}

type JsonRpcMessage = { method?: unknown; id?: unknown };

function messages(body: unknown): JsonRpcMessage[] {
  if (Array.isArray(body))
    return body.filter((item): item is JsonRpcMessage => !!item && typeof item === 'object');
  return body && typeof body === 'object' ? [body as JsonRpcMessage] : [];
}

/** A refusal before the SDK sees the request: an HTTP error in the API's `{"error": "..."}` shape. */
function refuse(response: ServerResponse, status: number, error: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}

function isJsonRpcMessage(value: unknown): boolean {
  return (
    !!value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}

/** A JSON-RPC 2.0 message, or a non-empty batch of them. */
function isJsonRpcBody(body: unknown): boolean {
  return Array.isArray(body) ? body.length > 0 && body.every(isJsonRpcMessage) : isJsonRpcMessage(body);
}

export class McpHttpServer {
  private sdk: Promise<Sdk> | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly tools: McpTools,
    private readonly options: McpServerOptions,
  ) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.maxSessions = options.maxSessions ?? 1000;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Serves one HTTP request of /mcp (POST, GET or DELETE); `body` is the parsed JSON body. */
  async handle(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    principal: Principal | undefined,
  ): Promise<void> {
    this.sdk ??= loadSdk();
    const sdk = await this.sdk;
    const owner = ownerOf(principal);
    const authInfo = { token: '', clientId: owner, scopes: [], extra: { principal } };
    const sessionId = request.headers['mcp-session-id'];
    const raw = Object.assign(request, { auth: authInfo });
    if (request.method === 'POST' && !isJsonRpcBody(body)) {
      refuse(response, 400, 'the body must be a JSON-RPC 2.0 message or a batch of them');
      return;
    }

    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      // Another caller's session is as unknown as a closed one.
      if (!session || session.owner !== owner) {
        refuse(response, 404, 'MCP session not found (it ended, expired, or belongs to another caller)');
        return;
      }
      session.lastSeen = Date.now();
      this.abortOnClose(session, response, body);
      await session.transport.handleRequest(raw, response, body);
      return;
    }

    const opening =
      request.method === 'POST' && messages(body).some((message) => sdk.isInitializeRequest(message));
    if (opening) {
      await this.openSession(sdk, owner, raw, response, body);
      return;
    }
    if (request.method !== 'POST') {
      refuse(response, 400, 'the Mcp-Session-Id header is required');
      return;
    }
    // Stateless: a server for this request only; closing it aborts what is still running.
    const server = this.createServer(sdk, undefined);
    const transport = new sdk.StreamableHTTPServerTransport({}); // no session id generator: stateless;
    response.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(raw, response, body);
  }

  private async openSession(
    sdk: Sdk,
    owner: string,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const running = new Map<string | number, AbortController>();
    const server = this.createServer(sdk, running);
    let session: Session | undefined;
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = { transport, server, owner, lastSeen: Date.now(), running };
        this.sessions.set(id, session);
        this.evictOverflow();
        this.startSweeper();
      },
      onsessionclosed: (id) => {
        this.drop(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /** The request's tools/call ids: aborted if the HTTP request closes before it answered them. */
  private abortOnClose(session: Session, response: ServerResponse, body: unknown): void {
    const ids = messages(body)
      .filter((message) => message.method === 'tools/call')
      .map((message) => message.id)
      .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number');
    if (ids.length === 0) return;
    response.once('close', () => {
      if (response.writableFinished) return;
      for (const id of ids) session.running.get(id)?.abort();
    });
  }

  private createServer(sdk: Sdk, running: Map<string | number, AbortController> | undefined): Server {
    const server = new sdk.Server(
      { name: this.options.name, version: this.options.version },
      {
        capabilities: { tools: { listChanged: false }, logging: {} },
        instructions:
          'Each tool is an agent of this Agent Service (input: message, optional sessionId to continue a conversation) or a rule chain.',
      },
    );
    const principalOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }): Principal | undefined =>
      extra.authInfo?.extra?.['principal'] as Principal | undefined;
    server.setRequestHandler(sdk.ListToolsRequestSchema, (_request, extra) => ({
      tools: this.tools.list(principalOf(extra)),
    }));
    server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
      const controller = new AbortController();
      const abort = (): void => controller.abort(extra.signal.reason);
      if (extra.signal.aborted) abort();
      else extra.signal.addEventListener('abort', abort, { once: true });
      running?.set(extra.requestId, controller);
      const token = request.params._meta?.progressToken;
      let step = 0;
      const progress =
        token === undefined
          ? undefined
          : (message: string): void => {
              step += 1;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: step, message },
                })
                .catch(() => undefined);
            };
      try {
        return await this.tools.call(
          principalOf(extra),
          request.params.name,
          request.params.arguments ?? {},
          {
            signal: controller.signal,
            ...(progress ? { progress } : {}),
          },
        );
      } catch (error) {
        // The protocol answers `code` and `message` as they are (McpError would prefix the message).
        if (error instanceof McpCallError)
          throw Object.assign(new Error(error.message), { code: sdk.ErrorCode.InvalidParams });
        throw error;
      } finally {
        extra.signal.removeEventListener('abort', abort);
        running?.delete(extra.requestId);
      }
    });
    return server;
  }

  private drop(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.server.close();
  }

  private evictOverflow(): void {
    while (this.sessions.size > this.maxSessions) {
      let oldest: [string, Session] | undefined;
      for (const entry of this.sessions)
        if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
      if (!oldest) return;
      this.drop(oldest[0]);
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [id, session] of this.sessions) if (now - session.lastSeen > this.idleMs) this.drop(id);
      },
      Math.min(this.idleMs, 60_000),
    );
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close()));
  }
}
