import { z } from 'zod';

export const openAIModel = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.int(),
  owned_by: z.string(),
});

export const openAIModelList = z.object({ object: z.literal('list'), data: z.array(openAIModel) });

/** Any text: an unknown or malformed id is a 404, as OpenAI answers it. */
export const openAIModelParams = z.object({ modelId: z.string().max(1000) });

export type OpenAIModel = z.infer<typeof openAIModel>;
