import { z } from 'zod';

const textPart = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]).optional(),
});
const content = z.union([z.string(), z.array(textPart), z.null()]);

export const chatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: content.optional(),
});

/** The Chat Completions request; fields other clients send (n, tools, user, ...) are accepted and ignored. */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1, 'must name an agent id').max(200),
  messages: z.array(chatMessageSchema).min(1, 'must hold at least one message').max(1000),
  stream: z.boolean().default(false),
  sessionId: z.string().min(1).max(200).optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
});

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
