import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ModelParams, ToolSpec } from './types.ts';

/** Our camelCase messages in the OpenAI wire format. */
export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        if (!message.images?.length) return { role: 'user', content: message.content };
        return {
          role: 'user',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...message.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
          ],
        };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls && message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

export function toOpenAITools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

type WireParams = Pick<
  ChatCompletionCreateParamsStreaming,
  | 'temperature'
  | 'top_p'
  | 'max_tokens'
  | 'stop'
  | 'response_format'
  | 'seed'
  | 'presence_penalty'
  | 'frequency_penalty'
  | 'logit_bias'
  | 'user'
  | 'tool_choice'
  | 'parallel_tool_calls'
>;

/** The request's parameters on the wire; tool_choice and parallel_tool_calls only when tools are offered. */
export function toOpenAIParams(params: ModelParams | undefined, withTools = false): WireParams {
  if (!params) return {};
  return {
    ...(params.seed === undefined ? {} : { seed: params.seed }),
    ...(params.presencePenalty === undefined ? {} : { presence_penalty: params.presencePenalty }),
    ...(params.frequencyPenalty === undefined ? {} : { frequency_penalty: params.frequencyPenalty }),
    ...(params.logitBias === undefined ? {} : { logit_bias: params.logitBias }),
    ...(params.user === undefined ? {} : { user: params.user }),
    ...(!withTools || params.toolChoice === undefined
      ? {}
      : { tool_choice: params.toolChoice as NonNullable<WireParams['tool_choice']> }),
    ...(!withTools || params.parallelToolCalls === undefined
      ? {}
      : { parallel_tool_calls: params.parallelToolCalls }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { top_p: params.topP }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...(params.stop === undefined || params.stop.length === 0 ? {} : { stop: params.stop }),
    ...(params.responseFormat === undefined
      ? {}
      : { response_format: params.responseFormat as unknown as NonNullable<WireParams['response_format']> }),
  };
}
