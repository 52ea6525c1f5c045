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
  'temperature' | 'top_p' | 'max_tokens' | 'stop' | 'response_format'
>;

export function toOpenAIParams(params: ModelParams | undefined): WireParams {
  if (!params) return {};
  return {
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { top_p: params.topP }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...(params.stop === undefined || params.stop.length === 0 ? {} : { stop: params.stop }),
    ...(params.responseFormat === undefined
      ? {}
      : { response_format: params.responseFormat as unknown as NonNullable<WireParams['response_format']> }),
  };
}
