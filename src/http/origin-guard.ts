// Browser-facing protections that do not depend on credentials.
//
// DNS rebinding: while requireAuth is off, a web page whose name rebinds to 127.0.0.1 would be
// same-origin with the API. So without auth only a loopback Host, the configured host or one listed
// in server.allowed_hosts is answered.
//
// Cross-site writes: a page can post a form (multipart, urlencoded, text/plain) without a preflight.
// A write whose Origin is not this server (or server.allowed_origins), or that the browser marks as
// cross-site in Sec-Fetch-Site, is refused whatever the auth mode. Clients that are not browsers send
// neither header and are not affected.
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors.ts';

export interface OriginPolicy {
  requireAuth: boolean;
  /** server.host: answered as a Host name even while auth is off. */
  host: string;
  /** Extra Host names (no port) answered while auth is off, e.g. a reverse proxy's name. */
  allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) allowed to send writes from another site. */
  allowedOrigins: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'platform': called by a chat platform from anywhere, authenticated by its own signature. */
    origin?: 'platform';
  }
}

/** The name of a Host header value without its port, lower-cased, IPv6 without brackets. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? value : value.slice(1, end);
  }
  const colon = value.lastIndexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1';
  return false;
}

/** Whether a Host header names this server in a way a rebinding page cannot fake. */
export function isTrustedHost(header: string | undefined, policy: OriginPolicy): boolean {
  if (!header) return false;
  const name = hostName(header);
  if (name === '') return false;
  if (isLoopbackName(name)) return true;
  const configured = policy.host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  // 0.0.0.0 and :: are listening addresses, not names a client uses.
  if (name === configured && configured !== '0.0.0.0' && configured !== '::') return true;
  return policy.allowedHosts.some((allowed) => allowed.toLowerCase() === name);
}

/** host[:port] of an origin, the way a Host header names it (default ports left out). */
function originHost(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** Why a write is refused as cross-site, or undefined when it may go on. */
export function crossSiteReason(request: FastifyRequest, policy: OriginPolicy): string | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    // Host and port only: behind a TLS-terminating proxy the scheme the browser used is not ours.
    const from = originHost(origin);
    if (from !== undefined && from === request.headers.host?.toLowerCase()) return undefined;
    if (from !== undefined && policy.allowedOrigins.some((allowed) => originHost(allowed) === from))
      return undefined;
    return `cross-site request refused: Origin ${origin === 'null' ? 'null' : JSON.stringify(origin)} is not this server (add it to server.allowed_origins to allow it)`;
  }
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site')
    return 'cross-site request refused: the browser marked it Sec-Fetch-Site: ' + site;
  return undefined;
}

export function installOriginGuard(app: FastifyInstance, policy: () => OriginPolicy): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.origin === 'platform') return;
    const current = policy();
    if (!current.requireAuth && !isTrustedHost(request.headers.host, current)) {
      throw forbidden(
        'host not allowed: while security.requireAuth is off only loopback names, server.host and server.allowed_hosts are answered',
      );
    }
    const reason = crossSiteReason(request, current);
    if (reason) throw forbidden(reason);
  });
}
