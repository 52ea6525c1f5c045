// Shapes of the model providers resource (/config/models). A provider's fields are the config
// file's (providerSchema), bounded for the API; views never carry the key, only hasApiKey.
import { z } from 'zod';
import { pricingSchema, providerModelSchema, providerSchema } from '../../config/schema.ts';
import { idParam } from '../../http/params.ts';

const stored = providerSchema.shape;

/** The writable fields of a provider. */
export const providerFields = {
  name: stored.name.unwrap().max(200).optional(),
  base_url: stored.base_url,
  api_key: stored.api_key.unwrap().max(4096).optional(),
  model: stored.model.unwrap().max(200).optional(),
  // Not strict, as the file is: unknown keys of a model entry are dropped, not refused.
  models: z.array(z.object(providerModelSchema.shape)).max(500).optional(),
  failover: stored.failover.unwrap().max(20).optional(),
  timeout_ms: stored.timeout_ms,
  first_byte_timeout_ms: stored.first_byte_timeout_ms,
  idle_timeout_ms: stored.idle_timeout_ms,
  max_retries: stored.max_retries,
  /** USD per million tokens (usage and cost budgets). */
  pricing: stored.pricing,
};

export const providerBody = z.strictObject({ id: idParam, ...providerFields });
export const providerPatch = z.strictObject(providerFields).partial();
export const apiKeyBody = z.strictObject({ apiKey: z.string().min(1).max(4096) });
/** PUT /config/models: `default` chooses the default provider; the other fields apply to it. */
export const defaultProviderBody = z.strictObject({
  model: providerFields.model,
  api_key: providerFields.api_key,
  base_url: providerFields.base_url.optional(),
  default: idParam.optional(),
});
export const providerParams = z.object({ name: idParam });

export const providerView = z.object({
  id: z.string(),
  name: z.string(),
  base_url: z.string(),
  model: z.string(),
  models: z.array(providerModelSchema),
  failover: z.array(z.string()),
  pricing: pricingSchema.optional(),
  hasApiKey: z.boolean(),
  default: z.boolean(),
});
export const modelsSummary = z.object({
  default: z.string(),
  model: z.string(),
  base_url: z.string(),
  hasApiKey: z.boolean(),
  demo: z.boolean(),
  providers: z.array(providerView),
});

/** POST /config/models/providers/{name}/test: one tiny request to the provider. */
export const connectionTestAnswer = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  /** The model that was asked. */
  model: z.string(),
  /** Why the request failed; never contains the key. */
  error: z.string().optional(),
});

export type ProviderBody = z.infer<typeof providerBody>;
export type ProviderPatch = z.infer<typeof providerPatch>;
export type DefaultProviderBody = z.infer<typeof defaultProviderBody>;
export type ProviderView = z.infer<typeof providerView>;
export type ModelsSummary = z.infer<typeof modelsSummary>;
export type ConnectionTestAnswer = z.infer<typeof connectionTestAnswer>;
