// What an agent turn hands the ai/agent node through RunOptions.extras, and what the node gives back.
import type { ChatMessage, ModelParams } from '../../model-providers/types.ts';
import type { RunExtras } from '../types.ts';

export interface Conversation {
  /** Earlier messages of the session (or of a stateless request), oldest first. */
  history: ChatMessage[];
  /** Pictures sent with this turn's input (URLs, usually data: URLs), for vision models. */
  images?: string[];
  /** Request-level overrides of the node's params (temperature, max_tokens from a chat request). */
  params?: ModelParams;
  /** The node reports the messages of this turn here, for the caller to persist. */
  record(messages: ChatMessage[]): void;
  /** The node reports a model failure here, so the driver can answer with its status (502, 504). */
  fail(error: unknown): void;
}

const CONVERSATION_KEY = 'conversation';
const AGENT_KEY = 'agentId';

export function withConversation(extras: RunExtras, conversation: Conversation, agentId: string): RunExtras {
  return { ...extras, [CONVERSATION_KEY]: conversation, [AGENT_KEY]: agentId };
}

export function conversationOf(extras: RunExtras): Conversation | undefined {
  return extras[CONVERSATION_KEY] as Conversation | undefined;
}

/** The agent whose workspace the node works in: the one the turn names, else the chain itself. */
export function agentIdOf(extras: RunExtras, chainId: string): string {
  const id = extras[AGENT_KEY];
  return typeof id === 'string' ? id : chainId;
}

/** Extras for a sub-agent: its own agent id and no shared history. */
export function subAgentExtras(agentId: string): RunExtras {
  return { [AGENT_KEY]: agentId };
}
