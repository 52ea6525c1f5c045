// Conversation sessions for the REST API: clearing one agent's session history.
import type { SessionStore } from '../../storage/session-store.ts';
import { sessionKey } from '../../turns/session-key.ts';
import type { ClearAnswer, ClearBody } from './sessions.schema.ts';

export class SessionsService {
  constructor(private readonly sessions: SessionStore) {}

  /** A session of another agent, or none, is answered with success: false rather than an error. */
  async clear(body: ClearBody): Promise<ClearAnswer> {
    const { agentId, channel, scope } = body;
    const key = body.sessionKey.startsWith('agent:')
      ? body.sessionKey
      : sessionKey({ agentId, channel, scope, scopeId: body.sessionKey });
    if (!key.startsWith(`agent:${agentId}:`)) {
      return { success: false, message: `session "${key}" does not belong to agent "${agentId}"` };
    }
    const cleared = await this.sessions.clear(key);
    return cleared
      ? { success: true, message: `session "${key}" cleared` }
      : { success: false, message: `session "${key}" not found` };
  }
}
