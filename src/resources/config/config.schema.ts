// Shapes of the config resource. A PUT body is a partial configuration: each section is merged
// into the file and the whole result is validated by the config file's own schema.
import { z } from 'zod';
import { configSchema } from '../../config/schema.ts';

// Every section of the config file may be sent (a list where the file has a list, such as bindings,
// else an object); the sections come from the config schema, so a new one is writable (and readable in
// the view) at once.
const section = z.record(z.string(), z.unknown()).optional();
const list = z.array(z.unknown()).optional();
const defaults = configSchema.parse({}) as Record<string, unknown>;
export const configPatch = z.strictObject(
  Object.fromEntries(
    Object.keys(configSchema.shape).map((name) => [name, Array.isArray(defaults[name]) ? list : section]),
  ) as Record<keyof typeof configSchema.shape, typeof section>,
);
export const configUpdateAnswer = z.object({
  success: z.literal(true),
  message: z.string(),
  restartRequired: z.array(z.string()),
});

export type ConfigPatch = z.infer<typeof configPatch>;
export type ConfigUpdateAnswer = z.infer<typeof configUpdateAnswer>;
