// The ws endpoints of chains (RuleGo's endpoint/ws), under /api/v1/endpoints/<from.path>: the
// upgrade is checked as the http endpoints are (the server's auth unless the endpoint says
// `auth: false`, plus the origin guard of every WebSocket), then each message of the socket runs the
// chain, one at a time in arrival order, and the first result's data goes back on the socket
// (RuleGo's responseToBody), in the kind of frame the message came in. A failed run answers
// {"error": "..."}; `to.wait: false` runs without answering. The sockets of a chain close when its
// endpoints stop (saved again, disabled, deleted): 1012, so the client reconnects to the new ones.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { AuthService } from '../auth/auth-service.ts';
import type { OriginPolicy } from '../http/origin-guard.ts';
import {
  checkUpgradeOrigin,
  CREDENTIAL_QUERY_KEYS,
  isCredentialProtocol,
  openSockets,
  refuseUpgrade,
  UpgradeRefused,
  upgradePrincipal,
} from '../http/socket-upgrade.ts';
import { newMessage } from '../engine/message.ts';
import { isJson, type EndpointManager, type HttpRoute } from './endpoint-manager.ts';
import { applyInProcessors } from './processors.ts';
import { ENDPOINTS_PREFIX } from './endpoint-routes.ts';

export interface EndpointSocketDeps {
  endpoints: EndpointManager;
  auth: AuthService;
  requireAuth: () => boolean;
  originPolicy: () => OriginPolicy;
}

/** A message is at most 1 MiB (the http endpoints' body limit). */
const MAX_PAYLOAD = 1024 * 1024;
/** Messages waiting for their run on one socket; past this the client is told to slow down. */
const MAX_PENDING = 32;
const HEARTBEAT_MS = 30_000;

export interface EndpointSockets {
  /** Takes the upgrade when its path is under /api/v1/endpoints/; false leaves it to others. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every socket (server shutdown). */
  close(): Promise<void>;
}

export function createEndpointSockets(deps: EndpointSocketDeps): EndpointSockets {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD,
    // A browser that offers protocols needs one back: the first that is not a credential.
    handleProtocols: (protocols) => {
      const offered = [...protocols];
      return offered.find((entry) => !isCredentialProtocol(entry)) ?? offered[0] ?? false;
    },
  });
  const open = openSockets(HEARTBEAT_MS);

  const checkAccess = async (request: IncomingMessage, url: URL, route: HttpRoute): Promise<void> => {
    checkUpgradeOrigin(deps, request);
    // Chains answer people: an api account's key does not open a protected endpoint.
    if (route.auth) await upgradePrincipal(deps, request, url, (principal) => principal.kind === 'user');
  };

  const serve = (
    socket: WebSocket,
    request: IncomingMessage,
    route: HttpRoute,
    url: URL,
    params: Record<string, string>,
  ): void => {
    open.add(socket);
    const gone = new AbortController();
    const stop = (): void => socket.close(1012, 'the endpoint was reloaded or stopped');
    route.stopped.addEventListener('abort', stop, { once: true });
    if (route.stopped.aborted) stop();
    socket.on('close', () => {
      route.stopped.removeEventListener('abort', stop);
      gone.abort();
    });
    socket.on('error', () => socket.terminate());

    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) {
      if (!(route.auth && CREDENTIAL_QUERY_KEYS.has(key))) query[key] = value;
    }
    const path = url.pathname.slice(ENDPOINTS_PREFIX.length);
    const headers = request.headers;
    const from = request.url ?? url.pathname;
    let pending = 0;
    let queue = Promise.resolve();
    const handle = async (data: RawData, isBinary: boolean): Promise<void> => {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data);
      const text = isBinary ? bytes.toString('latin1') : bytes.toString('utf8');
      const built = newMessage(text, {
        type: `WS:${route.path}`,
        dataType: isBinary ? 'BINARY' : isJson(text) ? 'JSON' : 'TEXT',
        metadata: { ...query, ...params, messageType: isBinary ? '2' : '1', path },
      });
      const message = applyInProcessors(route.inProcessors, built, { headers, body: bytes, from });
      if (!route.wait) {
        void deps.endpoints.run(route.target, message).catch(() => undefined);
        return;
      }
      const result = await deps.endpoints.run(route.target, message, gone.signal).catch((error: unknown) => ({
        outcome: 'failure' as const,
        results: [],
        error: error instanceof Error ? error.message : String(error),
      }));
      if (socket.readyState !== socket.OPEN) return;
      if (result.outcome === 'failure') {
        socket.send(JSON.stringify({ error: result.error ?? 'the chain failed' }));
        return;
      }
      const [first] = result.results;
      if (!first) return;
      if (isBinary) socket.send(Buffer.from(first.data, first.dataType === 'BINARY' ? 'latin1' : 'utf8'));
      else socket.send(first.data);
    };
    socket.on('message', (data, isBinary) => {
      if (pending >= MAX_PENDING) {
        socket.close(1013, `more than ${MAX_PENDING} messages waiting for their run`);
        return;
      }
      pending += 1;
      queue = queue
        .then(() => handle(data, isBinary))
        .catch(() => undefined)
        .finally(() => (pending -= 1));
    });
  };

  return {
    upgrade(request, socket, head) {
      let url: URL;
      try {
        url = new URL(request.url ?? '/', 'http://localhost');
      } catch {
        return false;
      }
      if (!url.pathname.startsWith(`${ENDPOINTS_PREFIX}/`)) return false;
      socket.on('error', () => socket.destroy());
      const path = url.pathname.slice(ENDPOINTS_PREFIX.length);
      const found = deps.endpoints.match('GET', path, 'ws');
      // Checked as a protected route when none matches, so strangers do not learn which exist.
      const guard: HttpRoute = found?.route ?? ({ auth: true } as HttpRoute);
      checkAccess(request, url, guard)
        .then(() => {
          if (!found) throw new UpgradeRefused(404, `no ws endpoint serves ${path}`);
          server.handleUpgrade(request, socket, head, (ws) =>
            serve(ws, request, found.route, url, found.params),
          );
        })
        .catch((error: unknown) => {
          if (error instanceof UpgradeRefused) refuseUpgrade(socket, error.status, error.message);
          else refuseUpgrade(socket, 400, 'the upgrade failed');
        });
      return true;
    },
    async close() {
      await open.closeAll();
      server.close();
    },
  };
}
