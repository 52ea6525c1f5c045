// The OpenAI Responses API request, validated at the edge. Fields that shape the turn are checked
// one by one; fields clients send that do not apply to an agent (include, reasoning, service_tier,
// prompt_cache_key, ...) are accepted and ignored, as the chat endpoint does.
import { z } from 'zod';
import { functionNameSchema } from '../../chat/chat.schema.ts';

const text = z.string().max(5_000_000);

const inputTextPart = z.looseObject({ type: z.literal('input_text'), text });
const outputTextPart = z.looseObject({ type: z.literal('output_text'), text });
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: text });
const inputImagePart = z
  .looseObject({
    type: z.literal('input_image'),
    image_url: z.string().max(20_000_000).nullish(),
    file_id: z.string().nullish(),
    detail: z.enum(['low', 'high', 'auto', 'original']).nullish(),
  })
  .refine((part) => part.file_id == null, 'file_id is not supported (there is no Files API); send image_url')
  .refine(
    (part) => typeof part.image_url === 'string' && /^(data:image\/|https?:\/\/)/i.test(part.image_url),
    'image_url must be a data:image/... URL or an http(s) URL',
  );
const inputFilePart = z
  .looseObject({ type: z.literal('input_file') })
  .refine(() => false, 'input_file is not supported; send the text or an image');

const contentPart = z.discriminatedUnion('type', [
  inputTextPart,
  outputTextPart,
  refusalPart,
  inputImagePart,
  inputFilePart,
]);

export const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  id: z.string().max(200).nullish(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([text, z.array(contentPart).max(500)]),
});

export const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().max(200).nullish(),
  call_id: z.string().min(1).max(200),
  name: functionNameSchema,
  arguments: z.string().max(1_000_000),
});

export const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  id: z.string().max(200).nullish(),
  call_id: z.string().min(1).max(200),
  output: z.union([text, z.array(contentPart).max(500)]),
});

/** A server tool call as this server shows it (see response-items.ts): replayed to the model. */
export const mcpCallItemSchema = z.looseObject({
  type: z.literal('mcp_call'),
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  arguments: z.string().max(1_000_000),
  output: text.nullish(),
  error: z.unknown().optional(),
});

export const itemReferenceSchema = z.looseObject({
  type: z.literal('item_reference'),
  id: z.string().min(1).max(200),
});

/** Reasoning items a client replays: accepted, not given to the model (agents' models reason anew). */
const reasoningItemSchema = z.looseObject({ type: z.literal('reasoning') });

const ITEM_SCHEMAS: Record<string, z.ZodType> = {
  message: messageItemSchema,
  function_call: functionCallItemSchema,
  function_call_output: functionCallOutputItemSchema,
  mcp_call: mcpCallItemSchema,
  item_reference: itemReferenceSchema,
  reasoning: reasoningItemSchema,
};

/** Checks `value` with `schema`, adding each of its issues (with its path) to the outer check. */
function checkWith(schema: z.ZodType, value: unknown, context: z.RefinementCtx): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}

/**
 * One input item, checked by its own type's schema so that an error names the item's field
 * (`input.2.call_id: ...`) rather than "no union member matched".
 */
const inputItemSchema = z.looseObject({ type: z.string().optional() }).superRefine((item, context) => {
  const type = item.type ?? ('role' in item ? 'message' : undefined);
  if (type === undefined) {
    context.addIssue({ code: 'custom', message: 'an input item needs a "type" (or a "role" for a message)' });
    return;
  }
  const schema = ITEM_SCHEMAS[type];
  if (!schema) {
    context.addIssue({
      code: 'custom',
      path: ['type'],
      message: `item type "${type}" is not supported (supported: ${Object.keys(ITEM_SCHEMAS).join(', ')})`,
    });
    return;
  }
  checkWith(schema, item, context);
});

export type MessageItem = z.infer<typeof messageItemSchema>;
export type FunctionCallItem = z.infer<typeof functionCallItemSchema>;
export type FunctionCallOutputItem = z.infer<typeof functionCallOutputItemSchema>;
export type McpCallItem = z.infer<typeof mcpCallItemSchema>;
export type InputItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | McpCallItem
  | z.infer<typeof itemReferenceSchema>
  | z.infer<typeof reasoningItemSchema>;

/** A function tool the client runs itself; the agent's own tools run on the server. */
const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: functionNameSchema,
  description: z.string().max(10_000).nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const toolSchema = z.looseObject({ type: z.string() }).superRefine((tool, context) => {
  if (tool.type !== 'function') {
    context.addIssue({
      code: 'custom',
      path: ['type'],
      message: `tool type "${tool.type}" is not supported: only "function" tools (run by the client); the agent's own tools run on the server`,
    });
    return;
  }
  checkWith(functionToolSchema, tool, context);
});

export type FunctionTool = z.infer<typeof functionToolSchema>;

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: functionNameSchema }),
]);

const textFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: functionNameSchema,
    schema: z.record(z.string(), z.unknown()),
    description: z.string().max(10_000).nullish(),
    strict: z.boolean().nullish(),
  }),
]);

const metadataSchema = z
  .record(
    z.string().max(64, 'keys are at most 64 characters'),
    z.string().max(512, 'values are at most 512 characters'),
  )
  .refine((metadata) => Object.keys(metadata).length <= 16, 'at most 16 keys');

/** A response id as this server makes them (`resp_` and 32 hex digits); anything else is unknown. */
export const responseIdSchema = z.string().min(1).max(200);

export const responseParamsSchema = z.object({ responseId: responseIdSchema });

export const createResponseSchema = z
  .looseObject({
    model: z.string().min(1, 'must name an agent id').max(200),
    input: z.union([text, z.array(inputItemSchema).max(2000)]),
    instructions: text.nullish(),
    stream: z.boolean().default(false),
    background: z.boolean().nullish(),
    store: z.boolean().nullish(),
    previous_response_id: responseIdSchema.nullish(),
    conversation: z
      .union([z.string().min(1).max(200), z.looseObject({ id: z.string().min(1).max(200) })])
      .nullish(),
    tools: z.array(toolSchema).max(128).nullish(),
    tool_choice: toolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    max_output_tokens: z.int().min(1).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    metadata: metadataSchema.nullish(),
    text: z.looseObject({ format: textFormatSchema.nullish() }).nullish(),
    truncation: z.enum(['auto', 'disabled']).nullish(),
    user: z.string().max(512).nullish(),
  })
  .superRefine((body, context) => {
    if (body.previous_response_id != null && body.conversation != null)
      context.addIssue({
        code: 'custom',
        path: ['conversation'],
        message: 'send either previous_response_id or conversation, not both',
      });
    if (body.background && body.stream)
      context.addIssue({
        code: 'custom',
        path: ['background'],
        message: 'a background response is not streamed; poll GET /responses/{id}',
      });
    if (body.background && body.store === false)
      context.addIssue({
        code: 'custom',
        path: ['background'],
        message: 'a background response needs store: true',
      });
    const tools = (body.tools ?? []) as Array<{ name?: unknown }>;
    const names = tools.map((tool) => tool.name);
    if (new Set(names).size !== names.length)
      context.addIssue({ code: 'custom', path: ['tools'], message: 'function names must be unique' });
    const choice = body.tool_choice;
    if (typeof choice === 'object' && choice !== null && !names.includes(choice.name))
      context.addIssue({
        code: 'custom',
        path: ['tool_choice'],
        message: `names function "${choice.name}", which is not in tools`,
      });
  });

export type CreateResponse = z.infer<typeof createResponseSchema>;

/** GET /responses/{id}: replaying a response's events (`stream=true`) is not offered. */
export const retrieveQuerySchema = z.looseObject({
  stream: z
    .enum(['true', 'false'])
    .optional()
    .refine((stream) => stream !== 'true', 'replaying a response as a stream is not supported; omit stream'),
});

export const inputItemsQuerySchema = z.object({
  after: z.string().max(200).optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});

export type InputItemsQuery = z.infer<typeof inputItemsQuerySchema>;

/** The Response object as this server answers it (open-ended: items and tools vary). */
export const responseObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.int(),
  status: z.enum(['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete']),
  model: z.string(),
  output: z.array(z.record(z.string(), z.unknown())),
});

export const inputItemListSchema = z.object({
  object: z.literal('list'),
  data: z.array(z.record(z.string(), z.unknown())),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

export const deletedResponseSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  deleted: z.literal(true),
});
