// Shapes of the channels resource. An account's common fields are the config file's
// (commonAccountFields), bounded for the API; its platform's own fields are declared beside the
// platform's adapter (channels/<platform>/account.ts), listed by GET /channels/platforms and checked
// by the service. Views never carry a secret, only hasSecret and secretsSet.
import { z } from 'zod';
import { accountSchema } from '../../config/schema.ts';
import { idParam } from '../../http/params.ts';

const stored = accountSchema.shape;

/** The writable common fields of a channel account. */
export const accountFields = {
  name: stored.name.unwrap().max(200).optional(),
  description: stored.description.unwrap().max(2000).optional(),
  enabled: stored.enabled.unwrap().optional(),
  dm_policy: stored.dm_policy.unwrap().optional(),
  group_policy: stored.group_policy.unwrap().optional(),
  allow_from: z.array(stored.allow_from.unwrap().element.max(200)).max(1000).optional(),
  group_require_mention: stored.group_require_mention,
};

/** Any other field is one of the platform's (GET /channels/platforms), checked against its declaration. */
const platformField = z.unknown().meta({ description: 'A field of the platform (GET /channels/platforms).' });

export const accountPatch = z.object(accountFields).catchall(platformField);
export const accountBody = z
  .object({
    id: idParam,
    ...accountFields,
    /** Also binds the new account to an agent (match keys as in /bindings; channel and accountId are set). */
    binding: z.object({ agentId: idParam, match: z.record(z.string(), z.unknown()).optional() }).optional(),
  })
  .catchall(platformField);

export const platformParams = z.object({ platform: z.string().max(64) });
export const accountParams = platformParams.extend({ accountId: idParam });

export const accountView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    dmPolicy: stored.dm_policy.unwrap(),
    groupPolicy: stored.group_policy.unwrap(),
    allowFrom: z.array(z.string()),
    appId: z.string(),
    /** Whether the platform's main secret (api_key, app_secret) is set. */
    hasSecret: z.boolean(),
    /** The other secret fields that are set (encrypt_key, token, ...); their values are never shown. */
    secretsSet: z.array(z.string()),
    groupRequireMention: z.boolean().optional(),
    /** The connection state of the account. */
    status: z.object({
      state: z.enum(['connected', 'connecting', 'error', 'disabled']),
      error: z.string().optional(),
      since: z.string(),
      /** Clustered mode: the instance holding the account's connection. */
      instance: z.string().optional(),
    }),
  })
  // The platform's other plain fields that are set, by their camelCase names (mode, agentId, ...).
  .catchall(z.unknown().meta({ description: 'A plain field of the platform, camelCased.' }));
/** A created account; an api account whose key was generated shows it here, once. */
export const createdAccountView = accountView.extend({ apiKey: z.string().optional() });
export const platformView = z.object({ enabled: z.boolean(), accounts: z.record(z.string(), accountView) });
export const channelsView = z.object({ platforms: z.record(z.string(), platformView) });

export const platformFieldView = z.object({
  /** The field's name in account bodies and the config file. */
  key: z.string(),
  label: z.string(),
  help: z.string().optional(),
  /** Write-only: never shown; views report it in hasSecret or secretsSet. */
  secret: z.boolean(),
  /** A secret whose being set views report (hasSecret, secretsSet); false for one never reported. */
  reported: z.boolean().optional(),
  /** Needed by an enabled account. */
  required: z.boolean(),
  /** Shown and required only while the account's `mode` field has this value. */
  mode: z.string().optional(),
  /** A field of fixed values: each value and its text. */
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
});
export const platformFormView = z.object({
  id: z.string(),
  label: z.string(),
  intro: z.string(),
  /** Whether the platform has group chats (group policy and mention rule apply). */
  groups: z.boolean(),
  /** The field hasSecret reports on. */
  mainSecret: z.string(),
  fields: z.array(platformFieldView),
});
export const platformsView = z.object({ platforms: z.array(platformFormView) });

export type AccountBody = z.infer<typeof accountBody>;
export type AccountPatch = z.infer<typeof accountPatch>;
export type AccountView = z.infer<typeof accountView>;
export type PlatformView = z.infer<typeof platformView>;
export type PlatformFieldView = z.infer<typeof platformFieldView>;
export type PlatformFormView = z.infer<typeof platformFormView>;
export type CreatedAccountView = z.infer<typeof createdAccountView>;
export type ChannelsView = z.infer<typeof channelsView>;
export type PlatformsView = z.infer<typeof platformsView>;
