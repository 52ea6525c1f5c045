// Shapes of the channels resource. An account's fields are the config file's (accountSchema),
// bounded for the API and all optional; views never carry a secret, only hasSecret.
import { z } from 'zod';
import { accountSchema } from '../../config/schema.ts';
import { idParam } from '../../http/params.ts';

const stored = accountSchema.shape;

/** The writable fields of a channel account. */
export const accountFields = {
  name: stored.name.unwrap().max(200).optional(),
  description: stored.description.unwrap().max(2000).optional(),
  enabled: stored.enabled.unwrap().optional(),
  dm_policy: stored.dm_policy.unwrap().optional(),
  group_policy: stored.group_policy.unwrap().optional(),
  allow_from: z.array(stored.allow_from.unwrap().element.max(200)).max(1000).optional(),
  app_id: stored.app_id.unwrap().max(500).optional(),
  app_secret: stored.app_secret.unwrap().min(1).max(4096).optional(),
  api_base: stored.api_base.unwrap().max(2000).optional(),
  api_key: stored.api_key.unwrap().min(16, 'must be at least 16 characters').max(4096).optional(),
  group_require_mention: stored.group_require_mention,
  mode: stored.mode,
  agent_id: stored.agent_id.unwrap().max(200).optional(),
  verification_token: stored.verification_token.unwrap().min(1).max(4096).optional(),
  encrypt_key: stored.encrypt_key.unwrap().min(1).max(4096).optional(),
  token: stored.token.unwrap().min(1).max(4096).optional(),
  encoding_aes_key: stored.encoding_aes_key.unwrap().min(1).max(4096).optional(),
  card_template_id: stored.card_template_id.unwrap().max(500).optional(),
  app_token: stored.app_token.unwrap().min(1).max(4096).optional(),
  signing_secret: stored.signing_secret.unwrap().min(1).max(4096).optional(),
};

export const accountPatch = z.strictObject(accountFields);
export const accountBody = z.strictObject({
  id: idParam,
  ...accountFields,
  /** Also binds the new account to an agent (match keys as in /bindings; channel and accountId are set). */
  binding: z.object({ agentId: idParam, match: z.record(z.string(), z.unknown()).optional() }).optional(),
});

export const platformParams = z.object({ platform: z.string().max(64) });
export const accountParams = platformParams.extend({ accountId: idParam });

export const accountView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  dmPolicy: stored.dm_policy.unwrap(),
  groupPolicy: stored.group_policy.unwrap(),
  allowFrom: z.array(z.string()),
  appId: z.string(),
  hasSecret: z.boolean(),
  /** The other secret fields that are set (encrypt_key, token, ...); their values are never shown. */
  secretsSet: z.array(z.string()),
  groupRequireMention: z.boolean().optional(),
  mode: stored.mode,
  agentId: z.string().optional(),
  cardTemplateId: z.string().optional(),
  /** The connection state of the account. */
  status: z.object({
    state: z.enum(['connected', 'connecting', 'error', 'disabled']),
    error: z.string().optional(),
    since: z.string(),
    /** Clustered mode: the instance holding the account's connection. */
    instance: z.string().optional(),
  }),
});
/** A created account; an api account whose key was generated shows it here, once. */
export const createdAccountView = accountView.extend({ apiKey: z.string().optional() });
export const platformView = z.object({ enabled: z.boolean(), accounts: z.record(z.string(), accountView) });
export const channelsView = z.object({ platforms: z.record(z.string(), platformView) });

export type AccountBody = z.infer<typeof accountBody>;
export type AccountPatch = z.infer<typeof accountPatch>;
export type AccountView = z.infer<typeof accountView>;
export type PlatformView = z.infer<typeof platformView>;
