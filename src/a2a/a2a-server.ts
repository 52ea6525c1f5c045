// The A2A server of every agent: the SDK's DefaultRequestHandler (tasks, streaming, cancellation,
// re-subscription) over a TurnExecutor, and its transport-agnostic JSON-RPC handlers for the v1.0
// method names and, through the SDK's compat layer, the v0.3 ones. a2a.routes.ts mounts it.
import type { AgentCard } from '@a2a-js/sdk';
import type { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { Principal } from '../auth/auth-service.ts';
import { mayUseAgent } from '../auth/agent-access.ts';
import { DEFAULT_AGENT_ID } from '../chains/chain-catalog.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { agentCard, cardAgent, serverCard, type CardAgent } from './a2a-card.ts';
import { PrincipalUser, TurnExecutor } from './a2a-executor.ts';
import { BoundedTaskStore } from './a2a-task-store.ts';

type Sdk = Awaited<ReturnType<typeof loadSdk>>;

// Loaded on the first A2A request: most servers never see one.
async function loadSdk() {
  const [core, server, compat, compatServer] = await Promise.all([
    import('@a2a-js/sdk'),
    import('@a2a-js/sdk/server'),
    import('@a2a-js/sdk/compat/v0_3'),
    import('@a2a-js/sdk/compat/v0_3/server'),
  ]);
  return { core, server, compat, compatServer };
}

interface AgentHandlers {
  card: AgentCard;
  v1: JsonRpcTransportHandler;
  legacy: InstanceType<Sdk['compatServer']['LegacyJsonRpcTransportHandler']>;
}

export interface A2AServerOptions {
  requireAuth: () => boolean;
  /** Tasks kept per agent for GetTask and re-subscription (default 5000). */
  taskLimit?: number;
}

/** Where the caller reached us, and our version, for the cards. */
export interface CardAddress {
  origin: string;
  version: string;
}

/** What one JSON-RPC call answers: one JSON response, or a stream of them (SSE frames). */
export type A2AAnswer =
  | { kind: 'json'; status: number; body: unknown }
  | {
      kind: 'stream';
      events: AsyncIterator<unknown>;
      first: unknown;
      errorBody: (error: unknown) => unknown;
    };

export class A2AServer {
  private sdk: Promise<Sdk> | undefined;
  private readonly handlers = new Map<string, Promise<AgentHandlers>>();

  constructor(
    private readonly turns: TurnRunner,
    private readonly agents: AgentDirectory,
    private readonly options: A2AServerOptions,
  ) {
    agents.onDeleted((agentId) => {
      this.handlers.delete(agentId);
    });
  }

  private cardOptions(at: CardAddress): { origin: string; version: string; requireAuth: boolean } {
    return { ...at, requireAuth: this.options.requireAuth() };
  }

  /** The card of an agent (404 for an unknown one). */
  card(agentId: string, at: CardAddress): Record<string, unknown> {
    return agentCard(cardAgent(this.agents.get(agentId)), this.cardOptions(at));
  }

  /** The server's card: the agents the caller may use (none for an anonymous caller while auth is on). */
  serverCard(principal: Principal | undefined, at: CardAddress): Record<string, unknown> {
    const anonymousShut = principal === undefined && this.options.requireAuth();
    const agents: CardAgent[] = anonymousShut
      ? []
      : this.agents
          .list()
          .filter((view) => view.status.loaded)
          .map(cardAgent)
          .filter((agent) => mayUseAgent(principal, agent.id));
    const primary = agents.find((agent) => agent.id === DEFAULT_AGENT_ID) ?? agents[0];
    return serverCard(agents, primary, this.cardOptions(at));
  }

  private async handlersOf(agentId: string): Promise<AgentHandlers> {
    let handlers = this.handlers.get(agentId);
    if (!handlers) {
      handlers = this.createHandlers(agentId);
      this.handlers.set(agentId, handlers);
      handlers.catch(() => this.handlers.delete(agentId));
    }
    return handlers;
  }

  private async createHandlers(agentId: string): Promise<AgentHandlers> {
    this.sdk ??= loadSdk();
    const sdk = await this.sdk;
    // The handler reads only versions and capabilities from its card; cards served carry real URLs.
    const card = sdk.core.AgentCard.fromJSON(
      this.card(agentId, { origin: 'http://127.0.0.1', version: '0' }),
    );
    const handler = new sdk.server.DefaultRequestHandler(
      card,
      new BoundedTaskStore(this.options.taskLimit ?? 5000),
      new TurnExecutor(agentId, this.turns),
    );
    return {
      card,
      v1: new sdk.server.JsonRpcTransportHandler(handler),
      legacy: new sdk.compatServer.LegacyJsonRpcTransportHandler(handler),
    };
  }

  /** One JSON-RPC request to an agent's endpoint (the agent exists and the caller may use it). */
  async handle(
    agentId: string,
    body: unknown,
    headers: Record<string, string | string[] | undefined>,
    principal: Principal | undefined,
  ): Promise<A2AAnswer> {
    const handlers = await this.handlersOf(agentId);
    const sdk = await (this.sdk as Promise<Sdk>);
    const method = body && typeof body === 'object' ? (body as { method?: unknown }).method : undefined;
    const id = body && typeof body === 'object' ? ((body as { id?: unknown }).id ?? null) : null;
    // As the SDK's own express handler: v0.3 names, and anything that is not a v1.0 name, go to the compat layer.
    const legacy = sdk.compat.isLegacyJsonRpcMethod(method) || !sdk.compat.isV1JsonRpcMethod(method);
    const mapError = (error: unknown): unknown =>
      legacy
        ? sdk.compatServer.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : sdk.server.JsonRpcTransportHandler.mapToJSONRPCError(error);
    const errorBody = (error: unknown): unknown => ({ jsonrpc: '2.0', id, error: mapError(error) });
    const header = (name: string): string | undefined => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    try {
      const extensionsHeader = legacy
        ? (header('x-a2a-extensions') ?? header('a2a-extensions'))
        : header('a2a-extensions');
      const requestedVersion = header('a2a-version');
      const context = sdk.server.defaultServerCallContextBuilder({
        extensions: sdk.core.Extensions.parseServiceParameter(extensionsHeader),
        user: new PrincipalUser(principal),
        headers,
        ...(requestedVersion ? { requestedVersion } : {}),
      });
      sdk.server.validateVersion(context.requestedVersion, handlers.card, 'JSONRPC');
      const answer = await (legacy ? handlers.legacy : handlers.v1).handle(body as never, context);
      if (answer && typeof answer === 'object' && Symbol.asyncIterator in answer) {
        const events = (answer as AsyncIterable<unknown>)[Symbol.asyncIterator]();
        let first: IteratorResult<unknown>;
        try {
          first = await events.next();
        } catch (error) {
          return { kind: 'json', status: 200, body: errorBody(error) };
        }
        return { kind: 'stream', events, first: first.done ? undefined : first.value, errorBody };
      }
      return { kind: 'json', status: 200, body: answer };
    } catch (error) {
      return { kind: 'json', status: 200, body: errorBody(error) };
    }
  }
}
