import { z } from 'zod';

const textPart = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]).optional(),
});
const content = z.union([z.string(), z.array(textPart), z.null()]);

/** A function name as OpenAI allows it. */
export const functionNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

const toolCallSchema = z.looseObject({
  id: z.string().min(1).max(200),
  type: z.literal('function').default('function'),
  function: z.looseObject({ name: functionNameSchema, arguments: z.string().max(1_000_000).default('') }),
});

export const chatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: content.optional(),
  /** assistant: the calls it made (client tools, as the client received them). */
  tool_calls: z.array(toolCallSchema).max(128).nullish(),
  /** tool: the call this message answers. */
  tool_call_id: z.string().min(1).max(200).optional(),
});

/** A tool the client runs itself (OpenAI's function tool). */
export const clientToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: functionNameSchema,
    description: z.string().max(10_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: functionNameSchema }) }),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: functionNameSchema,
      description: z.string().max(10_000).optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/**
 * The Chat Completions request. Parameters a model takes pass through to the provider; other fields
 * clients send (metadata, store, ...) are accepted and ignored.
 */
export const chatRequestSchema = z
  .looseObject({
    model: z.string().min(1, 'must name an agent id').max(200),
    messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(1000),
    stream: z.boolean().default(false),
    sessionId: z.string().min(1).max(200).optional(),
    parentMessageId: z.int().min(0).optional().meta({
      description:
        "with sessionId: the stored message the new user message follows (0: the start); sending an edited message after the original's parent starts a new branch",
    }),
    regenerate: z.int().positive().optional().meta({
      description:
        "with sessionId: a stored user message answered again (a new version of its answer, the others kept); the request's last message is then ignored",
    }),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: z.int().positive().nullish(),
    max_completion_tokens: z.int().positive().nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
    n: z
      .int()
      .nullish()
      .refine((n) => n == null || n === 1, 'only 1 is supported'),
    seed: z.int().nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    logit_bias: z
      .record(z.string().regex(/^\d{1,10}$/, 'keys must be token ids'), z.number().min(-100).max(100))
      .refine((bias) => Object.keys(bias).length <= 1024, 'at most 1024 tokens')
      .nullish(),
    user: z.string().max(512).nullish(),
    response_format: responseFormatSchema.nullish(),
    tools: z.array(clientToolSchema).max(128).nullish(),
    tool_choice: toolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
  })
  .superRefine((body, context) => {
    const names = (body.tools ?? []).map((tool) => tool.function.name);
    if (new Set(names).size !== names.length)
      context.addIssue({ code: 'custom', path: ['tools'], message: 'function names must be unique' });
    const choice = body.tool_choice;
    if (typeof choice === 'object' && choice !== null && !names.includes(choice.function.name))
      context.addIssue({
        code: 'custom',
        path: ['tool_choice'],
        message: `names function "${choice.function.name}", which is not in tools`,
      });
  });

// The streamed answer: Chat Completions chunks as chunks.ts builds them (the web UI and the CLI read
// these types; the file stays Node-free). It is SSE, so no response schema checks it.
const toolTypeSchema = z.enum(['builtin', 'rulechain', 'subagent', 'mcp']);

/** A tool call the server runs, in the AG-UI mode (X-Stream-Protocol: agui): its start ... */
const toolCallStartItem = z.object({
  type: z.literal('TOOL_CALL_START'),
  toolCallId: z.string(),
  toolCallName: z.string(),
  arguments: z.string(),
  toolType: toolTypeSchema,
});
/** ... and its result, named as the tool message AG-UI creates. */
const toolCallResultItem = z.object({
  type: z.literal('TOOL_CALL_RESULT'),
  messageId: z.string(),
  role: z.literal('tool'),
  toolCallId: z.string(),
  toolCallName: z.string(),
  content: z.string(),
  toolType: toolTypeSchema,
});
/** A client tool call, as OpenAI streams it: id, type and name first, then the arguments. */
const clientToolCallItem = z.object({
  index: z.int(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string() }),
});

export const chunkDeltaSchema = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().optional(),
  tool_calls: z.array(z.union([toolCallStartItem, toolCallResultItem, clientToolCallItem])).optional(),
});

export const usageBodySchema = z.object({
  prompt_tokens: z.int(),
  completion_tokens: z.int(),
  total_tokens: z.int(),
});

export const chatChunkSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.int(),
      delta: chunkDeltaSchema,
      finish_reason: z.enum(['stop', 'tool_calls']).nullable(),
    }),
  ),
  /** Only on the last chunk, when stream_options.include_usage asks for it. */
  usage: usageBodySchema.optional(),
});

/** The frame that ends a stream that failed once it had started. */
export const chatErrorFrameSchema = z.object({ error: z.string() });

export type ChunkDelta = z.infer<typeof chunkDeltaSchema>;
export type UsageBody = z.infer<typeof usageBodySchema>;
export type ChatCompletionChunk = z.infer<typeof chatChunkSchema>;
export type ChatErrorFrame = z.infer<typeof chatErrorFrameSchema>;

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatRequestMessage = z.infer<typeof chatMessageSchema>;

/** Pictures of a message's image_url parts (data: or http(s) URLs), for vision models. */
export function messageImages(message: ChatRequestMessage): string[] {
  const value = message.content;
  if (!Array.isArray(value)) return [];
  return value.flatMap((part) => {
    if (part.type !== 'image_url' || part.image_url === undefined) return [];
    const url = typeof part.image_url === 'string' ? part.image_url : part.image_url.url;
    return /^(data:image\/|https?:\/\/)/i.test(url) ? [url] : [];
  });
}

export function messageText(message: ChatRequestMessage): string {
  const value = message.content;
  if (typeof value === 'string') return value;
  if (!value) return '';
  return value
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}
