// The seam between agents and language models. Every adapter (openai-compatible, demo) implements
// ModelProvider; callers only ever see ModelEvent streams.
import type { ModelCaller } from './caller.ts';

export interface ToolCallRequest {
  id: string;
  name: string;
  /** JSON text, as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `images`: URLs (usually data: URLs) of pictures the user sent, for vision models. */
  | { role: 'user'; content: string; images?: string[] }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool as offered to the model: name, description and a JSON Schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelParams {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  responseFormat?: Record<string, unknown>;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Token id (as a string) → bias from -100 to 100. */
  logitBias?: Record<string, number>;
  /** The end user, as the client names them to the provider. */
  user?: string;
  /** `none`, `auto`, `required` or `{type: "function", function: {name}}`; sent only with tools. */
  toolChoice?: string | Record<string, unknown>;
  /** Sent only with tools. */
  parallelToolCalls?: boolean;
}

export interface ModelRequest {
  /** Model name at the provider; empty means the provider's default model. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  params?: ModelParams;
  signal: AbortSignal;
  /** Extra HTTP headers for the provider (a W3C `traceparent` when tracing is on). */
  headers?: Record<string, string>;
  /** Who the call is for (metering, traces); never sent to the provider or a model worker. */
  caller?: ModelCaller | undefined;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of promptTokens, those read from the provider's prompt cache, where it reports them. */
  cachedTokens?: number;
  /** Of completionTokens, those spent reasoning, where the provider reports them. */
  reasoningTokens?: number;
  /** The model that answered, as its provider entry names it (set by the usage meter). */
  model?: string;
}

export type ModelEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: ToolCallRequest }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  /** An attempt failed before answering and the call is being retried (usage metering counts it). */
  | { type: 'retry'; reason: string };

export interface ModelProvider {
  readonly id: string;
  /** True for the built-in demo model, so callers can label its answers. */
  readonly demo: boolean;
  /**
   * Streams one model response. Throws AppError('upstream' | 'timeout') with a message that never
   * contains a key; retries (before the first byte) are the adapter's business.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
