// A Chat Completions request as an agent turn: its parameters, its messages split into history and
// input (or the tool results that continue a turn), its client tools and the session it names.
import { AppError } from '../core/errors.ts';
import type { ChatMessage, ModelParams, ToolSpec } from '../model-providers/types.ts';
import { DEFAULT_SCOPE, sessionKey } from '../turns/session-key.ts';
import type { TurnInput } from '../turns/agent-turn.ts';
import type { TurnBranch } from '../turns/turn-branch.ts';
import type { Principal } from '../auth/auth-service.ts';
import { sessionOwner } from '../auth/agent-access.ts';
import { messageImages, messageText, type ChatRequest, type ChatRequestMessage } from './chat.schema.ts';

/** The request's model parameters, passed through to the provider. */
export function chatParams(body: ChatRequest): ModelParams {
  const result: ModelParams = {};
  if (body.temperature != null) result.temperature = body.temperature;
  if (body.top_p != null) result.topP = body.top_p;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) result.maxTokens = maxTokens;
  if (body.stop != null) result.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.seed != null) result.seed = body.seed;
  if (body.presence_penalty != null) result.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty != null) result.frequencyPenalty = body.frequency_penalty;
  if (body.logit_bias != null) result.logitBias = body.logit_bias;
  if (body.user != null) result.user = body.user;
  if (body.response_format != null && body.response_format.type !== 'text')
    result.responseFormat = body.response_format;
  if (body.tool_choice != null) result.toolChoice = body.tool_choice;
  if (body.parallel_tool_calls != null) result.parallelToolCalls = body.parallel_tool_calls;
  return result;
}

export function chatClientTools(body: ChatRequest): ToolSpec[] {
  return (body.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? '',
    parameters: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
}

function toChatMessage(message: ChatRequestMessage): ChatMessage | undefined {
  const text = messageText(message);
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: text };
    case 'user': {
      const images = messageImages(message);
      return { role: 'user', content: text, ...(images.length > 0 ? { images } : {}) };
    }
    case 'assistant': {
      const toolCalls = (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }));
      if (text === '' && toolCalls.length === 0) return undefined;
      return {
        role: 'assistant',
        content: text === '' ? null : text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      };
    }
    case 'tool':
      if (!message.tool_call_id) throw new AppError('invalid', 'messages: a tool message needs tool_call_id');
      return { role: 'tool', toolCallId: message.tool_call_id, content: text };
    case 'function':
      return undefined;
  }
}

export interface SplitMessages {
  /** The user's new message (empty when the request continues a turn with tool results). */
  input: string;
  images: string[];
  /** Earlier messages, for a stateless request. */
  history: ChatMessage[];
  /** Tool results that continue the turn the previous answer ended on (its client tool calls). */
  resume?: ChatMessage[];
}

/**
 * The last message is the turn's input: a user message, or the tool results (the trailing tool
 * messages) of the client tool calls the previous answer ended on. Earlier ones are the history of
 * a stateless request.
 */
export function splitMessages(messages: ChatRequestMessage[]): SplitMessages {
  const last = messages.at(-1);
  if (!last || (last.role !== 'user' && last.role !== 'tool'))
    throw new AppError('invalid', 'messages: the last message must have role "user" or "tool"');
  let end = messages.length - 1;
  if (last.role === 'tool') while (end > 0 && messages[end - 1]?.role === 'tool') end -= 1;
  const history: ChatMessage[] = [];
  for (const message of messages.slice(0, last.role === 'tool' ? end : -1)) {
    const converted = toChatMessage(message);
    if (converted) history.push(converted);
  }
  if (last.role === 'user') return { input: messageText(last), images: messageImages(last), history };
  const resume = messages.slice(end).map((message) => toChatMessage(message) as ChatMessage);
  return { input: '', images: [], history, resume };
}

/**
 * The session a sessionId (or an AG-UI threadId) names. An api-channel account's sessions are its
 * own (scope per_account_channel_peer): another app reusing the same id reaches a different one.
 * Users (and requests while auth is off) share the per_peer session of that id.
 */
export function apiSession(
  agentId: string,
  sessionId: string,
  principal: Principal | undefined,
): NonNullable<TurnInput['session']> {
  const owner = sessionOwner(principal);
  if (owner !== undefined) {
    const scope = 'per_account_channel_peer';
    return {
      key: sessionKey({ agentId, channel: 'api', scope, scopeId: `${owner}:${sessionId}` }),
      info: { agentId, channel: 'api', scope },
    };
  }
  return {
    key: sessionKey({ agentId, channel: 'api', scope: DEFAULT_SCOPE, scopeId: sessionId }),
    info: { agentId, channel: 'api', scope: DEFAULT_SCOPE },
  };
}

/** The branch a request starts (edit and resend, regenerate), checked against the rest of the request. */
export function chatBranch(body: ChatRequest, resuming: boolean): TurnBranch | undefined {
  const { parentMessageId, regenerate } = body;
  if (parentMessageId === undefined && regenerate === undefined) return undefined;
  const field = regenerate !== undefined ? 'regenerate' : 'parentMessageId';
  if (!body.sessionId) throw new AppError('invalid', `${field}: needs sessionId`);
  if (parentMessageId !== undefined && regenerate !== undefined)
    throw new AppError('invalid', 'parentMessageId: not with regenerate (a regenerated answer follows its message)');
  if (resuming) throw new AppError('invalid', `${field}: not with tool results`);
  return regenerate !== undefined ? { regenerate } : { parentId: parentMessageId ?? 0 };
}
