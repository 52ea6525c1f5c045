// What the memory tools of one turn may reach: the agent's memory files, and the transcripts its
// caller may see, scoped as the session list is. An api account sees its own sessions; a user of
// the api channel (who sees the whole list) every session of the agent; any other channel's
// conversation (a Telegram user, a Feishu group) only itself.
import type { MemoryIndex } from '../storage/memory-index.ts';
import type { SessionScope, SessionSearch } from '../storage/session-search.ts';
import type { MemoryAccess } from '../tools/types.ts';
import { AppError } from '../core/errors.ts';

const ACCOUNT_SCOPE = ':scope:per_account_channel_peer:';

/** The sessions a turn of `sessionKey` may search. */
export function sessionScopeOf(sessionKey: string): SessionScope {
  const channel = /^agent:[^:]+:channel:([^:]+):/.exec(sessionKey)?.[1];
  if (channel !== 'api') return { sources: [sessionKey] };
  const at = sessionKey.indexOf(ACCOUNT_SCOPE);
  if (at < 0) return {};
  const accountEnd = sessionKey.indexOf(':', at + ACCOUNT_SCOPE.length);
  return { prefixes: [accountEnd < 0 ? sessionKey : sessionKey.slice(0, accountEnd + 1)] };
}

export function memoryAccess(
  memory: MemoryIndex,
  sessions: SessionSearch,
  agentId: string,
  sessionKey: string | undefined,
): MemoryAccess {
  return {
    search: (query, limit) => memory.search(agentId, query, limit),
    get: (path, from, lines) => memory.read(agentId, path, from, lines),
    write: (target, text) => memory.append(agentId, target, text),
    searchSessions: async (query, limit) => {
      if (sessionKey === undefined)
        throw new AppError('invalid', 'session search needs a conversation with a session');
      return sessions.search(agentId, sessionScopeOf(sessionKey), query, limit);
    },
  };
}
