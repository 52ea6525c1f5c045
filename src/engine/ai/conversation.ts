// What an agent turn hands the ai/agent and ai/llm nodes (RunOptions.turn). What they give back
// travels as run events (the `conversation` record, `client-tool-calls`), and a failure in the run's
// result (RunResult.failure): the turn reads one stream.
import type { CompactionOverride } from '../../config/compaction.ts';
import type { ChatMessage, ModelParams, ModelProvider, ToolSpec } from '../../model-providers/types.ts';
import type { MemoryAccess } from '../../tools/types.ts';
import type { TurnContext } from '../types.ts';

/** What a node is about to send, for the session to fit its history into the model's window. */
export interface ContextRequest {
  /** The messages around the history: the system prompt before it, this turn's input after it. */
  system: ChatMessage[];
  inputs: ChatMessage[];
  tools: ToolSpec[];
  provider: ModelProvider;
  model: string;
  /** The model's context window, in tokens. */
  window: number;
  /** Tokens kept free for the answer. */
  reserve: number;
  /** The agent's own compaction settings over the configured defaults. */
  compaction?: CompactionOverride | undefined;
  signal: AbortSignal;
}

/** A session's history, compacted when it would pass the trigger (see turns/compactor.ts). */
export interface ContextControl {
  /** The history to send with this request, compacting first when the request would pass the trigger. */
  prepare(request: ContextRequest): Promise<ChatMessage[]>;
  /** The provider refused the request as too long: compact now; the new history, or undefined if nothing could be folded. */
  overflow(request: ContextRequest): Promise<ChatMessage[] | undefined>;
}

export interface Conversation {
  /** Earlier messages of the session (or of a stateless request), oldest first. */
  history: ChatMessage[];
  /** Pictures sent with this turn's input (URLs, usually data: URLs), for vision models. */
  images?: string[];
  /** Request-level overrides of the node's params (temperature, max_tokens from a chat request). */
  params?: ModelParams;
  /**
   * Tools the caller runs itself (a chat request's `tools`, AG-UI's RunAgentInput.tools), offered to
   * the model beside the agent's own. When the model calls one, the tool loop stops after the server
   * tools of that step and the node emits `client-tool-calls` for the caller to hand to its client.
   */
  clientTools?: ToolSpec[];
  /**
   * The client's results of the tool calls a previous turn ended on: they continue that turn in
   * place of a new user message.
   */
  resume?: ChatMessage[];
  /** A session's compaction; without it the history is sent as given. */
  context?: ContextControl;
  /** The agent's memory files and (scoped) transcripts, for the memory tools. */
  memory?: MemoryAccess;
}

/** The agent whose workspace the node works in: the one the turn names, else the chain itself. */
export function agentIdOf(turn: TurnContext, chainId: string): string {
  return turn.agentId ?? chainId;
}
