// Session keys: agent:{agentId}:channel:{channel}:scope:{scope}:{scopeId}.
export const SESSION_SCOPES = [
  'main',
  'per_peer',
  'per_channel_peer',
  'per_account_channel_peer',
  'thread',
] as const;
export type SessionScope = (typeof SESSION_SCOPES)[number];
export const DEFAULT_SCOPE: SessionScope = 'per_peer';

export function sessionKey(parts: {
  agentId: string;
  channel: string;
  scope: string;
  scopeId: string;
}): string {
  return `agent:${parts.agentId}:channel:${parts.channel}:scope:${parts.scope}:${parts.scopeId}`;
}
