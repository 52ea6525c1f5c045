// Which agents a caller may use. Admin users (and callers while auth is off) may use every agent;
// a member user only the agents of its `security.user_access` entry; an api account limited by
// `channels.api.accounts.<id>.agents` only those it lists.
import { forbidden } from '../core/errors.ts';
import type { Principal } from './auth-service.ts';

export function mayUseAgent(principal: Principal | undefined, agentId: string): boolean {
  if (principal?.kind === 'user' && principal.role === 'member')
    return principal.agents?.includes(agentId) ?? false;
  if (principal?.kind !== 'account' || principal.agents === undefined) return true;
  return principal.agents.includes(agentId);
}

/** Throws 403 unless the caller may use the agent. */
export function requireAgentAccess(principal: Principal | undefined, agentId: string): void {
  if (mayUseAgent(principal, agentId)) return;
  const who = principal?.kind === 'user' ? `user "${principal.username}"` : 'this API key';
  throw forbidden(`${who} may not use agent "${agentId}"`);
}

/** A member user: limited to its own agents, sessions and keys. */
export function isMember(principal: Principal | undefined): boolean {
  return principal?.kind === 'user' && principal.role === 'member';
}

/**
 * Whose private sessions a caller has: an api account's id, or `@<name>` for a member user (an id
 * cannot start with "@", so the two never meet). Undefined for admins and anonymous callers, who
 * share the api channel's per_peer sessions.
 */
export function sessionOwner(principal: Principal | undefined): string | undefined {
  if (principal?.kind === 'account') return principal.accountId;
  if (principal?.kind === 'user' && principal.role === 'member') return `@${principal.username}`;
  return undefined;
}
