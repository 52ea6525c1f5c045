// AG-UI's RunAgentInput (protocol 1.0), as POST /agents/{agentId}/agui takes it. Fields this service
// has no use for (state, forwardedProps, resume) are accepted and ignored.
import { z } from 'zod';
import { idSchema } from '../core/id-schema.ts';
import { functionNameSchema } from './chat.schema.ts';

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

const aguiToolCall = z.looseObject({
  id: z.string().min(1).max(200),
  type: z.literal('function'),
  function: z.looseObject({ name: functionNameSchema, arguments: z.string().max(1_000_000) }),
});

export const aguiMessageSchema = z.looseObject({
  id: z.string().max(200),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: z.union([z.string(), z.array(contentPart), z.record(z.string(), z.unknown())]).optional(),
  toolCalls: z.array(aguiToolCall).max(128).optional(),
  toolCallId: z.string().min(1).max(200).optional(),
});

export const aguiToolSchema = z.looseObject({
  name: functionNameSchema,
  description: z.string().max(10_000),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

export const runAgentInputSchema = z
  .looseObject({
    threadId: z.string().min(1, 'must not be empty').max(200),
    runId: z.string().min(1, 'must not be empty').max(200),
    parentRunId: z.string().max(200).optional(),
    state: z.unknown().optional(),
    messages: z.array(aguiMessageSchema).max(1000),
    tools: z.array(aguiToolSchema).max(128).default([]),
    context: z
      .array(z.looseObject({ description: z.string().max(10_000), value: z.string().max(100_000) }))
      .max(100)
      .default([]),
    forwardedProps: z.unknown().optional(),
  })
  .superRefine((input, context) => {
    const names = input.tools.map((tool) => tool.name);
    if (new Set(names).size !== names.length)
      context.addIssue({ code: 'custom', path: ['tools'], message: 'tool names must be unique' });
  });

export const aguiParams = z.object({ agentId: idSchema });

export type RunAgentInput = z.infer<typeof runAgentInputSchema>;
export type AguiMessage = z.infer<typeof aguiMessageSchema>;
