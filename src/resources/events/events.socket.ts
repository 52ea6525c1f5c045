// The WebSocket event API (TpClaw's): the upgrade of the three event routes, authenticated as the
// REST API is (a token or key in the Authorization header, the query or Sec-WebSocket-Protocol),
// then a subscriber of the live hub. Client messages: ping (answered pong) and, on /ws, subscribe.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { errorMessage, isAppError } from '../../core/errors.ts';
import { isValidId } from '../../core/id-schema.ts';
import type { AuthService, Principal } from '../../auth/auth-service.ts';
import type { OriginPolicy } from '../../http/origin-guard.ts';
import {
  checkUpgradeOrigin,
  openSockets,
  refuseUpgrade,
  UpgradeRefused,
  upgradePrincipal,
} from '../../http/socket-upgrade.ts';
import { API_PREFIX } from '../../http/prefix.ts';
import type { LiveHub, LiveSocket, Subscriber } from '../../observability/live-events.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { clientMessageSchema, EVENT_SOCKET_PROTOCOL } from './events.schema.ts';

export interface EventSocketDeps {
  hub: LiveHub;
  metrics: Metrics;
  auth: AuthService;
  requireAuth: () => boolean;
  originPolicy: () => OriginPolicy;
  /** Throws a not-found AppError for an unknown agent. */
  requireAgent: (agentId: string) => void;
  chainExists: (chainId: string) => boolean;
  /** Offered every upgrade that is not an event route; true when it took it (a chain's ws endpoint). */
  otherUpgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
}

/** What an upgrade asks for, from its path. */
type Target =
  | { route: 'ws'; agentId: string }
  | { route: 'agent'; agentId: string }
  | { route: 'chain'; chainId: string };

const HEARTBEAT_MS = 30_000;

/** The route an upgrade path names, or undefined when it is none of ours. */
function targetOf(url: URL): Target | undefined {
  const path = url.pathname;
  if (path === `${API_PREFIX}/ws`) {
    const agentId = url.searchParams.get('agentId') || 'main';
    if (agentId !== '*' && !isValidId(agentId)) throw new UpgradeRefused(400, 'agentId is not a valid id');
    return { route: 'ws', agentId };
  }
  const agent = /^\/api\/v1\/agents\/([^/]+)\/ws$/u.exec(path);
  if (agent) {
    const agentId = decodeURIComponent(agent[1] as string);
    if (!isValidId(agentId)) throw new UpgradeRefused(400, 'agentId is not a valid id');
    return { route: 'agent', agentId };
  }
  const chain = /^\/api\/v1\/event\/ws\/([^/]+)$/u.exec(path);
  if (chain) {
    const clientId = decodeURIComponent(chain[1] as string);
    if (!isValidId(clientId)) throw new UpgradeRefused(400, 'clientId is not a valid id');
    const chainId = url.searchParams.get('chainId');
    if (!chainId) throw new UpgradeRefused(400, 'chainId is required (?chainId=<rule chain id>)');
    if (!isValidId(chainId)) throw new UpgradeRefused(400, 'chainId is not a valid id');
    return { route: 'chain', chainId };
  }
  return undefined;
}

/**
 * The hub's view of a socket. The hub hands over ready-made frames, written straight to the TCP
 * connection: ws writes its own frames (pong, close) to the same connection synchronously, since
 * the server compresses nothing (perMessageDeflate off), so frames never interleave or reorder.
 */
function liveSocket(socket: WebSocket, connection: Duplex): LiveSocket {
  return {
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    get readyState() {
      return socket.readyState;
    },
    write: (frames) => void connection.write(frames),
    close: (code, reason) => socket.close(code, reason),
    terminate: () => socket.terminate(),
  };
}

export function attachEventSockets(app: FastifyInstance, deps: EventSocketDeps): void {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: 4096,
    // The hub writes its frames to the connection itself (see liveSocket): nothing may be compressed.
    perMessageDeflate: false,
    // A browser offering protocols must get one back: ours if offered, else the first one.
    handleProtocols: (protocols) =>
      protocols.has(EVENT_SOCKET_PROTOCOL) ? EVENT_SOCKET_PROTOCOL : ([...protocols][0] ?? false),
  });
  const open = openSockets(HEARTBEAT_MS);

  const authenticate = async (request: IncomingMessage, url: URL): Promise<Principal | undefined> => {
    checkUpgradeOrigin(deps, request);
    return upgradePrincipal(deps, request, url);
  };

  const accept = (
    socket: WebSocket,
    connection: Duplex,
    target: Target,
    principal: Principal | undefined,
  ): void => {
    // An api account sees only the turns its own key started; users see everything.
    const account = principal?.kind === 'account' ? principal.accountId : undefined;
    if (account !== undefined && target.route !== 'chain' && target.agentId === '*') {
      socket.close(1008, 'an api account cannot watch every agent');
      return;
    }
    const live = liveSocket(socket, connection);
    let subscriber: Subscriber =
      target.route === 'chain'
        ? { socket: live, topic: 'chain', target: target.chainId, account }
        : { socket: live, topic: 'agent', target: target.agentId, account };
    open.add(socket);
    const added = deps.hub.add(subscriber);
    deps.metrics.wsConnections.inc({ route: target.route });
    const reply = (message: object): void => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    socket.on('message', (data, isBinary) => {
      let parsed;
      try {
        parsed = clientMessageSchema.safeParse(isBinary ? undefined : JSON.parse(data.toString()));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        reply({
          type: 'error',
          payload: { message: 'messages are {"type":"ping"} or {"type":"subscribe","agentId":"..."}' },
        });
        return;
      }
      const message = parsed.data;
      if (message.type === 'ping') {
        reply({ type: 'pong', timestamp: Date.now() });
        return;
      }
      if (target.route !== 'ws') {
        reply({ type: 'error', payload: { message: 'subscribe is only available on /api/v1/ws' } });
        return;
      }
      try {
        if (message.agentId === '*') {
          if (account !== undefined) throw new UpgradeRefused(403, 'an api account cannot watch every agent');
        } else deps.requireAgent(message.agentId);
      } catch (error) {
        reply({ type: 'error', payload: { message: errorMessage(error) } });
        return;
      }
      deps.hub.remove(subscriber);
      subscriber = { ...subscriber, target: message.agentId };
      void deps.hub.add(subscriber).then(() => reply({ type: 'subscribed', agentId: message.agentId }));
    });
    socket.on('close', () => deps.hub.remove(subscriber));
    socket.on('error', () => socket.terminate());
    // Confirmed once the other instances know (clustered): events after this reach the client.
    void added.then(() =>
      reply({
        type: 'subscribed',
        ...(target.route === 'chain' ? { chainId: target.chainId } : { agentId: target.agentId }),
      }),
    );
  };

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (deps.otherUpgrade?.(request, socket, head)) return;
    socket.on('error', () => socket.destroy());
    let url: URL;
    let target: Target | undefined;
    try {
      url = new URL(request.url ?? '/', 'http://localhost');
      target = targetOf(url);
    } catch (error) {
      refuseUpgrade(
        socket,
        error instanceof UpgradeRefused ? error.status : 400,
        error instanceof UpgradeRefused ? error.message : 'bad request',
      );
      return;
    }
    if (!target) {
      refuseUpgrade(socket, 404, `no WebSocket route at ${url.pathname}`);
      return;
    }
    const found = target;
    authenticate(request, url)
      .then((principal) => {
        if (found.route === 'chain') {
          if (!deps.chainExists(found.chainId))
            throw new UpgradeRefused(404, `rule chain "${found.chainId}" not found`);
        } else if (found.agentId !== '*') deps.requireAgent(found.agentId);
        server.handleUpgrade(request, socket, head, (ws) => accept(ws, socket, found, principal));
      })
      .catch((error: unknown) => {
        if (error instanceof UpgradeRefused) refuseUpgrade(socket, error.status, error.message);
        else if (isAppError(error))
          refuseUpgrade(socket, error.kind === 'not-found' ? 404 : 400, error.message);
        else {
          app.log.error({ err: error }, 'WebSocket upgrade failed');
          refuseUpgrade(socket, 400, 'the upgrade failed');
        }
      });
  };

  app.server.on('upgrade', upgrade);
  // Open subscriptions end before the HTTP server waits for its connections to close.
  app.addHook('preClose', async () => {
    app.server.off('upgrade', upgrade);
    await open.closeAll();
    server.close();
  });
}
