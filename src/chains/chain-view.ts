// An agent or rule chain as the API answers it: the stored definition (secrets redacted) and whether
// it is loaded. Declared once here, with zod, for the server, the CLI and the web UI (which reads
// these types only: the file stays Node-free).
import { z } from 'zod';

export const chainStatusSchema = z.object({
  loaded: z.boolean(),
  error: z.string().optional(),
  /** What is wrong with the loaded chain now (an MCP server that could not start). */
  problems: z.array(z.string()).optional(),
  agentId: z.string().optional(),
});

/**
 * The definition as stored: the keys the clients read are named, every other key (nodes' own,
 * endpoints, keys of later RuleGo versions) passes through. It is the stored file, not the engine's
 * parsed form: a hand-written file keeps RuleGo's loose forms, and one that failed to load is shown
 * as it is, so these are no response schema (it would refuse such a file with a 500).
 */
export const chainDefinitionSchema = z.looseObject({
  ruleChain: z.looseObject({
    id: z.string(),
    name: z.string().optional(),
    debugMode: z.boolean().optional(),
    additionalInfo: z.looseObject({ category: z.string().optional() }).optional(),
  }),
  metadata: z.looseObject({
    nodes: z
      .array(z.looseObject({ type: z.string(), configuration: z.record(z.string(), z.unknown()).optional() }))
      .optional(),
    connections: z.array(z.unknown()).optional(),
  }),
});

export const chainViewSchema = chainDefinitionSchema.extend({ status: chainStatusSchema });

export type ChainStatus = z.infer<typeof chainStatusSchema>;
export type ChainDefinition = z.infer<typeof chainDefinitionSchema>;
export type ChainView = z.infer<typeof chainViewSchema>;
