// Which agents a caller may use. Users (and callers while auth is off) may use every agent; an api
// account limited by `channels.api.accounts.<id>.agents` only those it lists.
import { forbidden } from '../core/errors.ts';
import type { Principal } from './auth-service.ts';

export function mayUseAgent(principal: Principal | undefined, agentId: string): boolean {
  if (principal?.kind !== 'account' || principal.agents === undefined) return true;
  return principal.agents.includes(agentId);
}

/** Throws 403 unless the caller may use the agent. */
export function requireAgentAccess(principal: Principal | undefined, agentId: string): void {
  if (!mayUseAgent(principal, agentId)) throw forbidden(`this API key may not use agent "${agentId}"`);
}
