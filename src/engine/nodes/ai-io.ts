// What the ai/llm and ai/agent nodes share with rulego-components-ai: `params.responseFormat` as its
// string (`text`, `json_object`, `json_schema` with `params.jsonSchema`), the reply cleaned as it
// cleans it (no <think> block; a JSON reply without its ``` fence) and typed JSON when JSON was
// asked for; and `{"messages": [...]}` input data taken as the conversation.
import { z } from 'zod';
import type { ChatMessage, ModelParams } from '../../model-providers/types.ts';
import type { DataType, RuleMessage } from '../types.ts';

const FORMATS = ['text', 'json_object', 'json_schema'] as const;
const THINK = /<think>[\s\S]*?<\/think>/g;

export const responseFormatSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .optional()
  .meta({
    label: 'Response format',
    description: 'text, json_object or json_schema (with jsonSchema); default text.',
  });

export const jsonSchemaParam = z.string().optional().meta({
  label: 'JSON Schema',
  description: 'The JSON Schema of the reply when responseFormat is json_schema.',
});

export interface ReplyFormat {
  /** What the provider is sent, if anything. */
  wire: Record<string, unknown> | undefined;
  json: boolean;
  keepThink: boolean;
}

/** RuleGo's reading: an unknown format string is text; an object is passed to the provider as is. */
export function replyFormat(params: {
  responseFormat?: string | Record<string, unknown> | undefined;
  jsonSchema?: string | undefined;
  keepThink?: boolean | undefined;
}): ReplyFormat {
  const keepThink = params.keepThink ?? false;
  const format = params.responseFormat;
  if (format === undefined) return { wire: undefined, json: false, keepThink };
  if (typeof format !== 'string') {
    const type = format['type'];
    return { wire: format, json: type === 'json_object' || type === 'json_schema', keepThink };
  }
  const type = (FORMATS as readonly string[]).includes(format.trim()) ? format.trim() : 'text';
  if (type === 'text') return { wire: undefined, json: false, keepThink };
  if (type === 'json_object') return { wire: { type }, json: true, keepThink };
  let schema: unknown = {};
  if (params.jsonSchema !== undefined && params.jsonSchema.trim() !== '') {
    try {
      schema = JSON.parse(params.jsonSchema);
    } catch {
      throw new Error('params.jsonSchema is not valid JSON');
    }
  }
  return { wire: { type, json_schema: { name: 'response', schema } }, json: true, keepThink };
}

/** The node's params as the provider takes them: the format object in place of RuleGo's strings. */
export function wireParams(params: Record<string, unknown>, format: ReplyFormat): Record<string, unknown> {
  const { responseFormat: _format, jsonSchema: _schema, keepThink: _think, ...rest } = params;
  return format.wire === undefined ? rest : { ...rest, responseFormat: format.wire };
}

/** Drops unset fields, so a request that sets no temperature keeps the node's. */
function definedParams(params: Record<string, unknown>): ModelParams {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as ModelParams;
}

/**
 * One model call's parameters: the node's with the turn's laid over them, as the provider takes them,
 * and the reply format they ask for.
 */
export function callParams(
  node: Record<string, unknown>,
  turn: ModelParams | undefined,
): { format: ReplyFormat; wire: ModelParams } {
  const params: Record<string, unknown> = { ...node, ...turn };
  const format = replyFormat(params);
  return { format, wire: definedParams(wireParams(params, format)) };
}

/** The reply as RuleGo passes it on: data and its type. */
export function replyMessage(message: RuleMessage, text: string, format: ReplyFormat): RuleMessage {
  let data = text;
  if (!format.json) {
    if (!format.keepThink) data = data.replace(THINK, '').replace(/^\n+/, '');
  } else {
    data = data.replace(THINK, '').replace(/^\n+/, '');
    if (data.startsWith('```json\n')) data = data.slice('```json\n'.length);
    if (data.endsWith('\n```')) data = data.slice(0, -'\n```'.length);
  }
  const dataType: DataType = format.json ? 'JSON' : 'TEXT';
  return { ...message, dataType, data };
}

/**
 * JSON data of the form `{"messages": [{role, content}]}` is the conversation (content a string or
 * a list of parts, whose text parts are joined); anything else gives undefined.
 */
export function conversationOf(message: RuleMessage): ChatMessage[] | undefined {
  if (message.dataType !== 'JSON') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const list = (parsed as { messages?: unknown }).messages;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const messages: ChatMessage[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { role, content } = entry as { role?: unknown; content?: unknown };
    const text = contentText(content);
    if (role === 'system' || role === 'user') messages.push({ role, content: text });
    else if (role === 'assistant') messages.push({ role, content: text });
  }
  return messages.length > 0 ? messages : undefined;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

export type { ModelParams };
