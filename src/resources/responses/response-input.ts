// Responses API items as the agent turn's conversation: messages, the client's function calls and
// their outputs, and the server tool calls (`mcp_call`) this server showed earlier. The same
// conversion reads a request's `input` and a stored response's items (previous_response_id).
import { AppError } from '../../core/errors.ts';
import type { ChatMessage } from '../../model-providers/types.ts';
import { newItemId, type OutputItem } from './response-builder.ts';
import type {
  FunctionCallItem,
  FunctionCallOutputItem,
  InputItem,
  McpCallItem,
  MessageItem,
} from './responses.schema.ts';

type Part = Record<string, unknown> & { type: string };

function partsOf(content: MessageItem['content'] | FunctionCallOutputItem['output']): Part[] {
  return typeof content === 'string' ? [{ type: 'input_text', text: content }] : (content as Part[]);
}

/** The text of a message's (or a function output's) parts: text, output text and refusals. */
export function contentText(content: MessageItem['content'] | FunctionCallOutputItem['output']): string {
  if (typeof content === 'string') return content;
  return partsOf(content)
    .map((part) => {
      if (part.type === 'input_text' || part.type === 'output_text') return String(part['text'] ?? '');
      if (part.type === 'refusal') return String(part['refusal'] ?? '');
      return '';
    })
    .join('');
}

function contentImages(content: MessageItem['content']): string[] {
  if (typeof content === 'string') return [];
  return partsOf(content).flatMap((part) =>
    part.type === 'input_image' && typeof part['image_url'] === 'string' ? [part['image_url']] : [],
  );
}

/** Where a converted message came from: a client function output may continue a turn. */
export interface ConvertedMessage {
  message: ChatMessage;
  fromFunctionOutput: boolean;
}

/** Items as chat messages, in order; assistant text and the calls that follow it share one message. */
export function itemsToMessages(items: InputItem[]): ConvertedMessage[] {
  const result: ConvertedMessage[] = [];
  const add = (message: ChatMessage, fromFunctionOutput = false): void => {
    result.push({ message, fromFunctionOutput });
  };
  const lastAssistant = (): Extract<ChatMessage, { role: 'assistant' }> | undefined => {
    const last = result.at(-1)?.message;
    return last?.role === 'assistant' ? last : undefined;
  };
  for (const item of items) {
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const message = item as MessageItem;
        const text = contentText(message.content);
        if (message.role === 'system' || message.role === 'developer') add({ role: 'system', content: text });
        else if (message.role === 'assistant') add({ role: 'assistant', content: text });
        else {
          const images = contentImages(message.content);
          add({ role: 'user', content: text, ...(images.length > 0 ? { images } : {}) });
        }
        break;
      }
      case 'function_call': {
        const call = item as FunctionCallItem;
        const request = { id: call.call_id, name: call.name, arguments: call.arguments };
        const open = lastAssistant();
        if (open) open.toolCalls = [...(open.toolCalls ?? []), request];
        else add({ role: 'assistant', content: null, toolCalls: [request] });
        break;
      }
      case 'function_call_output': {
        const output = item as FunctionCallOutputItem;
        add({ role: 'tool', toolCallId: output.call_id, content: contentText(output.output) }, true);
        break;
      }
      case 'mcp_call': {
        // A tool this server ran: replayed as the call and its result, under the item's id.
        const call = item as McpCallItem;
        const request = { id: call.id, name: call.name, arguments: call.arguments };
        const open = lastAssistant();
        if (open && !open.toolCalls?.length) open.toolCalls = [request];
        else add({ role: 'assistant', content: null, toolCalls: [request] });
        const error = call.error == null ? '' : `error: ${JSON.stringify(call.error)}`;
        add({ role: 'tool', toolCallId: call.id, content: call.output ?? error });
        break;
      }
      case 'reasoning':
      case 'item_reference':
        // Reasoning is not replayed; references were resolved before.
        break;
    }
  }
  return result;
}

export interface SplitInput {
  /** The new user message (empty when the request continues with function outputs). */
  input: string;
  images: string[];
  /** The items before the turn's input, as messages. */
  history: ChatMessage[];
  /** Function outputs that continue the turn the previous response ended on. */
  resume?: ChatMessage[];
}

/**
 * The turn's input is the last item: a user message, or the trailing function_call_output items
 * (the client's results of the calls the previous response ended on). Earlier items are history.
 */
export function splitInput(items: InputItem[]): SplitInput {
  const converted = itemsToMessages(items);
  const last = converted.at(-1);
  if (last?.message.role === 'user')
    return {
      input: last.message.content,
      images: last.message.images ?? [],
      history: converted.slice(0, -1).map((entry) => entry.message),
    };
  if (!last?.fromFunctionOutput)
    throw new AppError('invalid', 'input: the last item must be a user message or a function_call_output');
  let start = converted.length - 1;
  while (start > 0 && converted[start - 1]?.fromFunctionOutput) start -= 1;
  return {
    input: '',
    images: [],
    history: converted.slice(0, start).map((entry) => entry.message),
    resume: converted.slice(start).map((entry) => entry.message),
  };
}

/** The input as OpenAI lists it (GET input_items): every item with an id, message content as parts. */
export function normalizeInputItem(item: InputItem): OutputItem {
  const type = item.type ?? 'message';
  const id = typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
  if (type === 'message') {
    const message = item as MessageItem;
    const content =
      typeof message.content === 'string'
        ? [
            message.role === 'assistant'
              ? { type: 'output_text', text: message.content, annotations: [] }
              : { type: 'input_text', text: message.content },
          ]
        : message.content;
    return { ...message, id: id ?? newItemId('msg'), type: 'message', status: 'completed', content };
  }
  if (type === 'function_call_output')
    return { ...item, id: id ?? newItemId('fco'), type, status: 'completed' };
  return { ...item, id: id ?? newItemId(type === 'function_call' ? 'fc' : 'item'), type };
}
