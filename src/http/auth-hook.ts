// Route-level access policy. Every route declares config.auth (default 'user'):
//   public: anyone; user: a user (JWT or the user's API key) when requireAuth is on;
//   jwt: always a user's JWT; chat: a user or an enabled api-channel account key when requireAuth is on.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthenticated } from '../core/errors.ts';
import { isMember } from '../auth/agent-access.ts';
import type { AuthService, Principal } from '../auth/auth-service.ts';
import { checkMemberRequest } from './member-routes.ts';

export type AuthPolicy = 'public' | 'user' | 'jwt' | 'chat';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function installAuth(app: FastifyInstance, auth: AuthService, requireAuth: () => boolean): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const policy: AuthPolicy = request.routeOptions.config.auth ?? 'user';
    if (policy === 'public') return;
    const credential = bearer(request);
    const principal = credential ? await auth.resolveBearer(credential) : undefined;
    if (policy === 'jwt') {
      if (principal?.kind === 'user' && principal.via === 'jwt') {
        request.principal = principal;
        if (isMember(principal)) checkMemberRequest(request);
        return;
      }
      throw unauthenticated(
        credential ? 'a valid login token (JWT) is required' : 'missing Authorization: Bearer <token>',
      );
    }
    if (principal?.kind === 'user' || (policy === 'chat' && principal?.kind === 'account')) {
      request.principal = principal;
      if (isMember(principal)) checkMemberRequest(request);
      return;
    }
    if (!requireAuth()) return;
    if (!credential) throw unauthenticated('missing Authorization: Bearer <token or API key>');
    if (principal?.kind === 'account')
      throw unauthenticated('this API key is only valid for the chat endpoint');
    throw unauthenticated('invalid or expired credentials');
  });
}
