// Whose model call this is: the agent, the channel and account it came through, and the user. Set
// around each agent turn (turns/agent-turn.ts) and each sub-agent run, read by the meter when a
// model is called, so every caller inside a turn (agent nodes, llm nodes, compaction, memory
// flushes) is attributed without passing anything through the engine.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../auth/auth-service.ts';

export interface Attribution {
  agentId: string;
  /** api, cron, rules or a chat platform; empty when unknown. */
  channel: string;
  /** The api account (key) or the platform account; empty when none. */
  accountId: string;
  /** The platform user (sender) or the signed-in user; empty when none. */
  userId: string;
}

export const UNATTRIBUTED: Attribution = Object.freeze({
  agentId: '',
  channel: '',
  accountId: '',
  userId: '',
});

// The one module-level value of the service: an AsyncLocalStorage is a channel through the async
// call graph, and both ends (turns and the meter) must hold the same one.
const storage = new AsyncLocalStorage<Attribution>();

/** Runs `work` with the attribution given (fields not given are kept from the enclosing one). */
export function withAttribution<T>(attribution: Partial<Attribution>, work: () => T): T {
  const current = storage.getStore() ?? UNATTRIBUTED;
  return storage.run({ ...current, ...attribution }, work);
}

export function currentAttribution(): Attribution {
  return storage.getStore() ?? UNATTRIBUTED;
}

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
