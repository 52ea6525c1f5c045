// Where a response's turn keeps its conversation. `conversation` names a session as the chat
// endpoint's `sessionId` does. `previous_response_id` continues the session that response ran in
// when it is still that session's latest turn; otherwise (a fork, another agent, or a response that
// ran stateless) a new session starts from the conversation as it stood at that response.
import { AppError, notFound } from '../../core/errors.ts';
import type { Principal } from '../../auth/auth-service.ts';
import { apiSession } from '../../chat/chat-request.ts';
import type { ChatMessage } from '../../model-providers/types.ts';
import type { SessionStore } from '../../storage/session-store.ts';
import type { TurnInput } from '../../turns/agent-turn.ts';
import { itemsToMessages } from './response-input.ts';
import type { InputItem } from './responses.schema.ts';
import type { ResponseStore } from './responses.store.ts';

export type TurnSession = NonNullable<TurnInput['session']>;

function sessionOfKey(key: string, agentId: string): TurnSession {
  const scope = /:scope:([^:]+):/.exec(key)?.[1] ?? 'per_peer';
  return { key, info: { agentId, channel: 'api', scope } };
}

export interface ContinueOptions {
  previousId: string;
  agentId: string;
  owner: string;
  principal: Principal | undefined;
  /** The new response's id, which names a new session when one is needed. */
  responseId: string;
  /** Whether a response with this id runs right now (it cannot be continued yet). */
  isRunning(id: string): boolean;
}

export class ResponseConversations {
  constructor(
    private readonly store: ResponseStore,
    private readonly sessions: SessionStore,
  ) {}

  /** The session that continues `previousId`, made (and filled) first when it has to be a new one. */
  async continueFrom(options: ContinueOptions): Promise<TurnSession> {
    const { previousId, agentId } = options;
    const previous = await this.store.get(options.owner, previousId);
    if (!previous) {
      if (options.isRunning(previousId))
        throw new AppError('conflict', `previous_response_id: response "${previousId}" is still running`);
      throw notFound(`previous_response_id: response "${previousId}" does not exist`);
    }
    if (previous.status === 'in_progress' || previous.status === 'queued')
      throw new AppError('conflict', `previous_response_id: response "${previousId}" is still running`);
    if (previous.status !== 'completed')
      throw new AppError(
        'invalid',
        `previous_response_id: response "${previousId}" is ${previous.status}; only a completed response can be continued`,
      );
    if (previous.sessionKey !== null && previous.agentId === agentId) {
      const end = await this.store.sessionEnd(previous.sessionKey);
      if (previous.sessionEnd === null || end === previous.sessionEnd)
        return sessionOfKey(previous.sessionKey, agentId);
    }
    const history = await this.historyAt(previous);
    const session = apiSession(agentId, options.responseId, options.principal);
    await this.sessions.append(session.key, session.info, history);
    return session;
  }

  /** The conversation as it stood when `previous` ended. */
  private async historyAt(previous: {
    id: string;
    sessionKey: string | null;
    sessionEnd: number | null;
  }): Promise<ChatMessage[]> {
    if (previous.sessionKey !== null)
      return this.store.sessionMessagesUpTo(
        previous.sessionKey,
        previous.sessionEnd ?? Number.MAX_SAFE_INTEGER,
      );
    // It ran stateless: its input items hold the conversation before it, its output items the rest.
    const items = [
      ...(await this.store.items(previous.id, 'input')),
      ...(await this.store.items(previous.id, 'output')),
    ] as unknown as InputItem[];
    return itemsToMessages(items).map((entry) => entry.message);
  }
}
