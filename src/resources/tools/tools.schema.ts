// Shapes of the tools resource.
import { z } from 'zod';

export const toolListing = z.object({
  name: z.string(),
  type: z.enum(['builtin', 'rulechain', 'subagent']),
  description: z.string(),
  /** JSON Schema of the tool's input. */
  parameters: z.record(z.string(), z.unknown()),
  /** The chain a rulechain or subagent tool runs. */
  targetId: z.string().optional(),
});

export type ToolListing = z.infer<typeof toolListing>;
