// One agent turn: the session's history in, the agent's chain run with it, the turn's messages
// persisted. Turns of one session run one at a time; turns of different sessions run concurrently.
import { AppError, isAppError } from '../core/errors.ts';
import { KeyedMutex } from '../core/keyed-mutex.ts';
import { withConversation, type Conversation } from '../engine/ai/conversation.ts';
import type { RunEvent } from '../engine/types.ts';
import type { ChatMessage, ModelParams, Usage } from '../model-providers/types.ts';
import type { AgentDirectory } from '../chains/agent-directory.ts';
import type { SessionInfo, SessionStore } from '../storage/session-store.ts';

export interface TurnInput {
  agentId: string;
  input: string;
  /** Earlier messages for a stateless turn (ignored when `session` is set). */
  history?: ChatMessage[];
  session?: { key: string; info: SessionInfo };
  params?: ModelParams;
  metadata?: Record<string, string>;
  signal: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

export interface TurnOutput {
  text: string;
  usage: Usage | undefined;
}

function addUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return { ...next };
  return {
    promptTokens: total.promptTokens + next.promptTokens,
    completionTokens: total.completionTokens + next.completionTokens,
    totalTokens: total.totalTokens + next.totalTokens,
  };
}

export class TurnRunner {
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly agents: AgentDirectory,
    private readonly sessions: SessionStore,
  ) {}

  /** Throws 404 for an unknown agent and 409 for one that is not loaded. Call before streaming. */
  checkAgent(agentId: string): void {
    this.agents.require(agentId);
  }

  run(input: TurnInput): Promise<TurnOutput> {
    const session = input.session;
    if (!session) return this.runNow(input, input.history ?? []);
    return this.locks.run(session.key, async () => this.runNow(input, await this.sessions.load(session.key)));
  }

  private async runNow(input: TurnInput, history: ChatMessage[]): Promise<TurnOutput> {
    this.agents.require(input.agentId);
    let recorded: ChatMessage[] | undefined;
    let failure: unknown;
    const conversation: Conversation = {
      history,
      ...(input.params ? { params: input.params } : {}),
      record: (messages) => (recorded = messages),
      fail: (error) => (failure ??= error),
    };
    let text = '';
    let usage: Usage | undefined;
    const onEvent = (event: RunEvent): void => {
      if (event.type === 'text-delta') text += event.text;
      else if (event.type === 'usage') usage = addUsage(usage, event.usage);
      input.onEvent?.(event);
    };
    const result = await this.agents.run(input.agentId, input.input, input.metadata ?? {}, {
      signal: input.signal,
      onEvent,
      extras: withConversation({}, conversation, input.agentId),
    });
    if (result.outcome === 'failure') {
      if (isAppError(failure)) throw failure;
      throw new AppError('upstream', `agent "${input.agentId}" failed: ${result.error ?? 'unknown error'}`);
    }
    if (text === '' && result.results.length > 0) {
      // A chain without a model node: its result is the answer; report it as text too.
      text = result.results.map((message) => message.data).join('\n');
      input.onEvent?.({ type: 'text-delta', text });
    }
    if (input.session) {
      const messages = recorded ?? [
        { role: 'user', content: input.input },
        { role: 'assistant', content: text },
      ];
      await this.sessions.append(input.session.key, input.session.info, messages);
    }
    return { text, usage };
  }
}
