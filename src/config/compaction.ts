// Compaction settings: `agents.defaults.compaction` in the config file, overridden per agent by the
// `compaction` field of its ai/agent node. Every field is optional at both levels; what neither
// sets takes the default below.
import { z } from 'zod';

export const compactionSchema = z.strictObject({
  /** Summarise older turns when a request would pass the trigger (default true). */
  enabled: z.boolean().optional().meta({
    label: 'Enabled',
    description: 'Summarise older turns when a request would pass the trigger (default true).',
  }),
  /** The trigger, in percent of the model's context window (default 75). */
  trigger_percent: z.int().min(10).max(95).optional().meta({
    label: 'Trigger (%)',
    description: "The trigger, in percent of the model's context window (default 75).",
  }),
  /** Estimated tokens of the newest turns always kept verbatim (default 8,000). */
  keep_recent_tokens: z.int().min(0).max(10_000_000).optional().meta({
    label: 'Recent tokens kept',
    description: 'Estimated tokens of the newest turns always kept verbatim (default 8000).',
  }),
  /** The summariser as `provider/model`; default: the agent's own model. */
  model: z
    .string()
    .regex(/^[A-Za-z0-9_-]+\/.+$/, 'must be "provider/model"')
    .optional()
    .meta({
      label: 'Summary model',
      description: "The summariser as provider/model; default: the agent's own model.",
    }),
  /** One silent turn before each compaction to write what matters to memory files (default true). */
  memory_flush: z.boolean().optional().meta({
    label: 'Memory flush',
    description:
      'One silent turn before each compaction to write what matters to memory files (default true).',
  }),
});

export type CompactionOverride = z.infer<typeof compactionSchema>;

export interface CompactionSettings {
  enabled: boolean;
  triggerPercent: number;
  keepRecentTokens: number;
  /** Empty: the agent's model. */
  model: string;
  memoryFlush: boolean;
}

export const COMPACTION_DEFAULTS: CompactionSettings = {
  enabled: true,
  triggerPercent: 75,
  keepRecentTokens: 8000,
  model: '',
  memoryFlush: true,
};

/** The default context window of a provider's models, in tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The settings in force: the agent's override over the configured defaults over the built-in ones. */
export function compactionSettings(
  defaults: CompactionOverride | undefined,
  override: CompactionOverride | undefined,
): CompactionSettings {
  const pick = <K extends keyof CompactionOverride>(key: K): CompactionOverride[K] =>
    override?.[key] ?? defaults?.[key];
  return {
    enabled: pick('enabled') ?? COMPACTION_DEFAULTS.enabled,
    triggerPercent: pick('trigger_percent') ?? COMPACTION_DEFAULTS.triggerPercent,
    keepRecentTokens: pick('keep_recent_tokens') ?? COMPACTION_DEFAULTS.keepRecentTokens,
    model: pick('model') ?? COMPACTION_DEFAULTS.model,
    memoryFlush: pick('memory_flush') ?? COMPACTION_DEFAULTS.memoryFlush,
  };
}

/**
 * A model's context window from the `models` config: its entry's `context_window`, else its
 * provider's, else 128,000. `providerId` may be unknown (a provider built from a node's own URL).
 */
export function contextWindowOf(
  models: {
    providers: Record<
      string,
      {
        model: string;
        context_window?: number | undefined;
        models: Array<{ name: string; alias?: string | undefined; context_window?: number | undefined }>;
      }
    >;
  },
  providerId: string,
  model: string,
): number {
  const provider = Object.hasOwn(models.providers, providerId) ? models.providers[providerId] : undefined;
  if (!provider) return DEFAULT_CONTEXT_WINDOW;
  const name = model || provider.model;
  const entry = provider.models.find((candidate) => candidate.name === name || candidate.alias === name);
  return entry?.context_window ?? provider.context_window ?? DEFAULT_CONTEXT_WINDOW;
}
