// What an agent turn hands the ai/agent and ai/llm nodes (RunOptions.turn), and what they give back.
// A node's failure travels in its node-end event (`cause`), not through here.
import type { ChatMessage, ModelParams } from '../../model-providers/types.ts';
import type { TurnContext } from '../types.ts';

export interface Conversation {
  /** Earlier messages of the session (or of a stateless request), oldest first. */
  history: ChatMessage[];
  /** Pictures sent with this turn's input (URLs, usually data: URLs), for vision models. */
  images?: string[];
  /** Request-level overrides of the node's params (temperature, max_tokens from a chat request). */
  params?: ModelParams;
  /** The node reports the messages of this turn here, for the caller to persist. */
  record(messages: ChatMessage[]): void;
}

/** The agent whose workspace the node works in: the one the turn names, else the chain itself. */
export function agentIdOf(turn: TurnContext, chainId: string): string {
  return turn.agentId ?? chainId;
}
