// What every WebSocket upgrade of the server shares (the event API and the chains' ws endpoints):
// the credential (Authorization, a `bearer.<token>` subprotocol since browsers cannot set headers,
// or ?token=), the host and origin checks (no CORS protects a WebSocket), the HTTP refusal written
// on the raw socket, and the set of open sockets kept alive by pings and closed at shutdown.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { AuthService, Principal } from '../auth/auth-service.ts';
import { crossSiteReason, isTrustedHost, type OriginPolicy } from './origin-guard.ts';

/** Query keys that carry a credential: never put into a protected route's message metadata. */
export const CREDENTIAL_QUERY_KEYS: ReadonlySet<string> = new Set(['token', 'access_token', 'key']);
/** The subprotocol prefix that carries a credential. */
const BEARER_PROTOCOL = 'bearer.';

/** An upgrade turned away with an HTTP status, written back by `refuseUpgrade`. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

/** Answers an upgrade with an HTTP error and a JSON body, then closes the connection. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The credential of an upgrade: Authorization: Bearer, ?token= / ?access_token= / ?key=, or a `bearer.<token>` protocol. */
export function upgradeCredential(request: IncomingMessage, url: URL): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/iu.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  for (const key of CREDENTIAL_QUERY_KEYS) {
    const value = url.searchParams.get(key);
    if (value) return value;
  }
  const protocols = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((entry) => entry.trim());
  return (
    protocols.find((entry) => entry.startsWith(BEARER_PROTOCOL))?.slice(BEARER_PROTOCOL.length) || undefined
  );
}

/** Whether an offered subprotocol is a credential (never chosen as the socket's protocol). */
export function isCredentialProtocol(protocol: string): boolean {
  return protocol.startsWith(BEARER_PROTOCOL);
}

export interface UpgradeAuthDeps {
  auth: AuthService;
  requireAuth: () => boolean;
  originPolicy: () => OriginPolicy;
}

/** Refuses (403) an upgrade from an untrusted host while auth is off, or from a page of another site. */
export function checkUpgradeOrigin(deps: UpgradeAuthDeps, request: IncomingMessage): void {
  const policy = deps.originPolicy();
  if (!deps.requireAuth() && !isTrustedHost(request.headers.host, policy))
    throw new UpgradeRefused(403, 'host not allowed while security.requireAuth is off');
  // A cross-site page must not use the user's cookies or a loopback address.
  const crossSite = crossSiteReason({ method: 'GET-UPGRADE', headers: request.headers } as never, policy);
  if (crossSite) throw new UpgradeRefused(403, crossSite);
}

/**
 * The principal of an upgrade's credential when `accepts` takes it; undefined when none is needed
 * (security.requireAuth off); else a 401 refusal.
 */
export async function upgradePrincipal(
  deps: UpgradeAuthDeps,
  request: IncomingMessage,
  url: URL,
  accepts: (principal: Principal) => boolean = () => true,
): Promise<Principal | undefined> {
  const credential = upgradeCredential(request, url);
  const principal = credential ? await deps.auth.resolveBearer(credential) : undefined;
  if (principal && accepts(principal)) return principal;
  if (!deps.requireAuth()) return undefined;
  throw new UpgradeRefused(
    401,
    credential
      ? 'invalid or expired credentials'
      : 'missing credentials: send a token or API key (Authorization, ?token= or Sec-WebSocket-Protocol bearer.<token>)',
  );
}

/** The open sockets of one server: pinged every `heartbeatMs`, cut when they stop answering. */
export interface OpenSockets {
  /** Tracks a socket until it closes. */
  add(socket: WebSocket): void;
  /** Stops the pings and closes every socket (1001), terminating those that do not close in 500 ms. */
  closeAll(): Promise<void>;
}

export function openSockets(heartbeatMs: number): OpenSockets {
  const open = new Set<WebSocket>();
  const alive = new WeakSet<WebSocket>();
  // Connections that stopped answering protocol pings (a peer gone without a close) are cut.
  const heartbeat = setInterval(() => {
    for (const socket of open) {
      if (!alive.has(socket)) {
        socket.terminate();
        continue;
      }
      alive.delete(socket);
      socket.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();
  return {
    add(socket) {
      open.add(socket);
      alive.add(socket);
      socket.on('pong', () => alive.add(socket));
      socket.on('close', () => open.delete(socket));
    },
    async closeAll() {
      clearInterval(heartbeat);
      const closed = [...open].map(
        (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
      );
      for (const socket of open) socket.close(1001, 'server shutting down');
      await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
      for (const socket of open) socket.terminate();
    },
  };
}
