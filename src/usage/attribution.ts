// Whose model call this is: the agent, the channel and account it came through, and the user. Made
// for each agent turn (turns/agent-turn.ts) and carried with its context as the model caller
// (model-providers/caller.ts) to every model call inside it (agent nodes, llm nodes, compaction,
// memory flushes, sub-agents), where the meter reads it.
import type { Principal } from '../auth/auth-service.ts';
import type { Attribution } from '../model-providers/caller.ts';

export { UNATTRIBUTED, type Attribution } from '../model-providers/caller.ts';

/**
 * The attribution of a turn from its metadata, as the drivers set it: channel, accountId and
 * senderId (channels), userId (a signed-in API user), channel "cron" (cron runs).
 */
export function attributionOf(agentId: string, metadata: Record<string, string> | undefined): Attribution {
  return {
    agentId,
    channel: metadata?.['channel'] ?? '',
    accountId: metadata?.['accountId'] ?? '',
    userId: metadata?.['senderId'] ?? metadata?.['userId'] ?? '',
  };
}

/** Turn metadata naming the caller of the chat endpoint: its api account, or the signed-in user. */
export function principalMetadata(principal: Principal | undefined): Record<string, string> {
  if (principal?.kind === 'account') return { accountId: principal.accountId };
  if (principal?.kind === 'user') return { userId: principal.username };
  return {};
}
