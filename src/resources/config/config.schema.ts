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

/**
 * GET /config: every section of the file, no secret (see configView, config.service.ts). The server,
 * data and cluster sections hold none and are shown as they are (URL credentials as ***); secrets
 * elsewhere are `true`/`false` when set, so those sections name only the keys clients read and pass
 * the rest through. The named sections come first, in the file's order: the parse of the answer
 * writes them in this order, then the others as they come.
 */
export const configViewSchema = z.looseObject({
  server: configSchema.shape.server,
  data: configSchema.shape.data,
  cluster: configSchema.shape.cluster,
  models: z.looseObject({
    default_provider: z.string(),
    providers: z.record(z.string(), z.looseObject({})),
  }),
  security: z.looseObject({
    requireAuth: z.boolean(),
    /** Each user's name, with `true` for the password. */
    users: z.record(z.string(), z.literal(true)),
  }),
});

export type ConfigPatch = z.infer<typeof configPatch>;
export type ConfigUpdateAnswer = z.infer<typeof configUpdateAnswer>;
export type ConfigView = z.infer<typeof configViewSchema>;
