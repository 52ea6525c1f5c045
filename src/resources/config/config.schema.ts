// Shapes of the config resource. A PUT body is a partial configuration: each section is merged
// into the file and the whole result is validated by the config file's own schema.
import { z } from 'zod';

export const configPatch = z.strictObject({
  server: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  models: z.record(z.string(), z.unknown()).optional(),
  security: z.record(z.string(), z.unknown()).optional(),
  engine: z.record(z.string(), z.unknown()).optional(),
  agents: z.record(z.string(), z.unknown()).optional(),
  channels: z.record(z.string(), z.unknown()).optional(),
  bindings: z.array(z.unknown()).optional(),
});
export const configUpdateAnswer = z.object({
  success: z.literal(true),
  message: z.string(),
  restartRequired: z.array(z.string()),
});

export type ConfigPatch = z.infer<typeof configPatch>;
export type ConfigUpdateAnswer = z.infer<typeof configUpdateAnswer>;
