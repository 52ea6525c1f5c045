// Shapes of the first-run wizard's API: whether setup is still needed, and a provider proven by a
// live completion before it is saved.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { providerFields } from '../models/models.schema.ts';

export const setupStatus = z.object({
  /** No model provider yet and the admin password is still the default: the wizard is shown. */
  needed: z.boolean(),
  hasProvider: z.boolean(),
  defaultAdminPassword: z.boolean(),
  requireAuth: z.boolean(),
});
export const setupProviderBody = z.strictObject({
  id: idParam,
  base_url: providerFields.base_url,
  model: z.string().min(1).max(200),
  api_key: providerFields.api_key,
});
export const setupProviderAnswer = z.object({
  id: z.string(),
  /** What the model answered to the test prompt. */
  reply: z.string(),
  latencyMs: z.int(),
});

export type SetupStatus = z.infer<typeof setupStatus>;
export type SetupProviderBody = z.infer<typeof setupProviderBody>;
export type SetupProviderAnswer = z.infer<typeof setupProviderAnswer>;

export const setupTelegramBody = z.strictObject({
  token: z.string().min(1).max(200),
  /** The Bot API origin, for a proxy or a self-hosted server (default https://api.telegram.org). */
  api_base: z.url({ protocol: /^https?$/ }).optional(),
});
export const setupTelegramAnswer = z.object({ accountId: z.string(), latencyMs: z.int() });
export type SetupTelegramBody = z.infer<typeof setupTelegramBody>;
