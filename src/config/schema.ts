// The config file's schema: the one source of validation, defaults and types for configuration.
// Objects are strict, so an unknown key is reported with its path instead of being ignored.
import { z } from 'zod';
import { idSchema } from '../core/ids.ts';

export const DEFAULT_PORT = 9527;
export const DEFAULT_HOST = '127.0.0.1';
/** The built-in password of the default `admin` user; the server warns at every start while it is in use. */
export const DEFAULT_ADMIN_PASSWORD = 'changeme';

const id = idSchema;

export const providerModelSchema = z.strictObject({
  name: z.string().min(1),
  alias: z.string().optional(),
});

export const providerSchema = z.strictObject({
  name: z.string().optional(),
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  api_key: z.string().optional(),
  model: z.string().default(''),
  models: z.array(providerModelSchema).default([]),
  /** Other provider ids tried in order when this one fails before answering. */
  failover: z.array(id).default([]),
  timeout_ms: z.int().positive().max(3_600_000).optional(),
});

const policy = z.enum(['allow', 'allowlist', 'disabled']);

export const accountSchema = z.strictObject({
  name: z.string().default(''),
  description: z.string().default(''),
  enabled: z.boolean().default(true),
  api_key: z.string().optional(),
  /** api: the agents this account's key may call (chat, MCP, A2A); absent means every agent. */
  agents: z.array(id).optional(),
  app_id: z.string().optional(),
  app_secret: z.string().optional(),
  /**
   * Origin of the platform's API, for a self-hosted server or a proxy (telegram: default
   * https://api.telegram.org). Not shown in views: a proxy URL may carry credentials.
   */
  api_base: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .refine((value) => {
      const url = new URL(value);
      return url.username === '' && url.password === '';
    }, 'must not carry a user name or password')
    .optional(),
  dm_policy: policy.default('allow'),
  group_policy: policy.default('allow'),
  allow_from: z.array(z.string()).default([]),
  /** In groups, answer only messages that mention the bot (platforms that report mentions). */
  group_require_mention: z.boolean().optional(),
  // Platform-specific fields; each platform's adapter says which it takes (channels/<platform>/).
  /** wecom: `bot` (smart robot, long connection; default) or `app` (callback app over a webhook). */
  mode: z.enum(['bot', 'app']).optional(),
  /** wecom app mode: the application's AgentId. */
  agent_id: z.string().optional(),
  /** feishu / feishu_webhook: the event subscription's Verification Token (write-only). */
  verification_token: z.string().optional(),
  /** feishu / feishu_webhook: the Encrypt Key of encrypted events (write-only). */
  encrypt_key: z.string().optional(),
  /** wecom app mode: the callback Token (write-only). */
  token: z.string().optional(),
  /** wecom app mode: the callback EncodingAESKey (write-only). */
  encoding_aes_key: z.string().optional(),
  /** dingtalk: the AI card template streamed into; plain markdown replies when empty. */
  card_template_id: z.string().optional(),
  /** slack: the app-level token (xapp-...) of Socket Mode (write-only). */
  app_token: z.string().optional(),
  /** slack Events API mode: the app's Signing Secret (write-only). */
  signing_secret: z.string().optional(),
});

/** Account fields that are secrets: accepted on writes, never shown (views say which are set). */
export const ACCOUNT_SECRET_FIELDS = [
  'app_secret',
  'api_key',
  'verification_token',
  'encrypt_key',
  'token',
  'encoding_aes_key',
  'app_token',
  'signing_secret',
] as const;
export type AccountSecretField = (typeof ACCOUNT_SECRET_FIELDS)[number];

const platformSchema = z.strictObject({
  enabled: z.boolean().default(true),
  accounts: z.record(id, accountSchema).default({}),
});

export const PLATFORMS = [
  'api',
  'feishu',
  'feishu_webhook',
  'dingtalk',
  'wecom',
  'telegram',
  'slack',
  'discord',
] as const;
export type Platform = (typeof PLATFORMS)[number];

export const bindingSchema = z.strictObject({
  agent_id: id,
  match: z
    .strictObject({
      default: z.boolean().optional(),
      channel: z.enum(PLATFORMS).optional(),
      account_id: id.optional(),
      peer: z.string().optional(),
    })
    .default({}),
});

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).default(DEFAULT_HOST),
      port: z.int().min(0).max(65535).default(DEFAULT_PORT),
      /** Largest accepted JSON body, in bytes. */
      body_limit: z
        .int()
        .positive()
        .default(1024 * 1024),
      /** Time limit of one request (and one synchronous rule-chain run), in ms. */
      request_timeout_ms: z.int().positive().default(60_000),
      /** Time given to in-flight requests on shutdown, in ms. */
      shutdown_timeout_ms: z.int().positive().default(10_000),
      log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /**
       * Host names (no port) answered besides loopback names and server.host while requireAuth is
       * off, e.g. the name a reverse proxy forwards. Guards against DNS rebinding.
       */
      allowed_hosts: z.array(z.string().min(1).max(253)).default([]),
      /** Origins (https://app.example.com) whose pages may send writes to the API from another site. */
      allowed_origins: z
        .array(z.url({ protocol: /^https?$/, error: 'must be an http(s) origin' }))
        .default([]),
    })
    .prefault({}),
  data: z
    .strictObject({
      root_dir: z.string().min(1).default('./data'),
      logs_dir: z.string().min(1).default('./data/logs'),
      /**
       * Where sessions, cron tasks and run history live: empty for the embedded libsql file under
       * root_dir, or a postgres:// URL (the clustered mode's shared database).
       */
      database_url: z
        .string()
        .refine((url) => url === '' || /^postgres(ql)?:\/\//.test(url), 'must be empty or a postgres:// URL')
        .default(''),
    })
    .prefault({}),
  cluster: z
    .strictObject({
      /** Empty: one instance (the default). A redis:// URL turns clustered mode on. */
      redis_url: z
        .string()
        .refine((url) => url === '' || /^rediss?:\/\//.test(url), 'must be empty or a redis:// URL')
        .default(''),
      /** Starts every Redis key and channel of this deployment, so deployments can share one Redis. */
      key_prefix: z
        .string()
        .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'use 1-64 letters, digits, ":", "_", "." or "-"')
        .default('agent-service:'),
      /** This instance's name in logs, /ready and channel holders; empty: <hostname>-<pid>. */
      instance_id: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{0,64}$/, 'use up to 64 letters, digits, "_", "." or "-"')
        .default(''),
    })
    .prefault({}),
  models: z
    .strictObject({
      default_provider: z.string().default(''),
      providers: z.record(id, providerSchema).default({}),
    })
    .superRefine((models, context) => {
      if (models.default_provider && !models.providers[models.default_provider]) {
        context.addIssue({
          code: 'custom',
          path: ['default_provider'],
          message: `names provider "${models.default_provider}", which is not configured`,
        });
      }
      for (const [providerId, provider] of Object.entries(models.providers)) {
        for (const [index, other] of provider.failover.entries()) {
          if (other === providerId || !models.providers[other]) {
            context.addIssue({
              code: 'custom',
              path: ['providers', providerId, 'failover', index],
              message: `"${other}" is not another configured provider`,
            });
          }
        }
      }
    })
    .prefault({}),
  security: z
    .strictObject({
      requireAuth: z.boolean().default(false),
      users: z.record(id, z.string().min(1)).default({ admin: DEFAULT_ADMIN_PASSWORD }),
      jwtSecret: z.string().min(16).optional(),
      jwtExpire: z
        .string()
        .regex(/^\d+[smhd]$/, 'must be a duration like 30m, 24h or 7d')
        .default('24h'),
      /** Login attempts allowed per client per minute. */
      loginRateLimit: z.int().positive().default(10),
    })
    .prefault({}),
  engine: z
    .strictObject({
      script_timeout_ms: z.int().positive().max(60_000).default(2000),
      script_memory_mb: z.int().positive().max(1024).default(32),
      /** Worker threads that run user scripts; 0 means one per core but one, at least 1, at most 2. */
      script_workers: z.int().min(0).max(64).default(0),
      /** Worker threads that make model provider calls; 0 makes them on the main thread. */
      model_workers: z.int().min(0).max(16).default(1),
      /** Node executions (and `for` iterations) one run may do, nested runs included; 413 past it. */
      max_node_executions: z.int().positive().max(100_000_000).default(10_000),
      /** Branches one node execution may start. */
      max_fan_out: z.int().positive().max(1_000_000).default(1_000),
      /** restApiCall may reach private, loopback and link-local addresses (off: refused, as web_fetch). */
      rest_allow_private_network: z.boolean().default(false),
      /** Hosts restApiCall may reach whatever they resolve to (`api.internal`, `10.0.0.5:8080`). */
      rest_allowed_hosts: z.array(z.string().min(1).max(300)).default([]),
      /** The exec rule-chain node may run programs on the server (off: a chain with one is refused). */
      allow_exec: z.boolean().default(false),
      /** The ssh rule-chain node may be loaded (off: a chain with one is refused). */
      allow_ssh: z.boolean().default(false),
    })
    .prefault({}),
  agents: z
    .strictObject({
      defaults: z.record(z.string(), z.unknown()).default({}),
    })
    .prefault({}),
  channels: z.partialRecord(z.enum(PLATFORMS), platformSchema).default({}),
  bindings: z.array(bindingSchema).default([]),
});

export type Config = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type AccountConfig = z.infer<typeof accountSchema>;
export type BindingConfig = z.infer<typeof bindingSchema>;
