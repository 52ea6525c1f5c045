// The config file's schema: the one source of validation, defaults and types for configuration.
// Objects are strict, so an unknown key is reported with its path instead of being ignored.
import { z } from 'zod';
import { idSchema } from '../core/id-schema.ts';
import { compactionSchema } from './compaction.ts';
import { memorySchema } from './memory.ts';

export const DEFAULT_PORT = 9527;
export const DEFAULT_HOST = '127.0.0.1';
/** The built-in password of the default `admin` user; the server warns at every start while it is in use. */
export const DEFAULT_ADMIN_PASSWORD = 'changeme';

const id = idSchema;

/** Prices in USD per million tokens; cached_input defaults to input (issue 24). */
export const pricingSchema = z.strictObject({
  input: z.number().min(0).max(1_000_000).default(0),
  cached_input: z.number().min(0).max(1_000_000).optional(),
  output: z.number().min(0).max(1_000_000).default(0),
});

export const providerModelSchema = z.strictObject({
  name: z.string().min(1),
  alias: z.string().optional(),
  /** Overrides the provider's pricing for this model. */
  pricing: pricingSchema.optional(),
  /** This model's context window in tokens (default: its provider's). */
  context_window: z.int().positive().max(100_000_000).optional(),
});

export const providerSchema = z.strictObject({
  name: z.string().optional(),
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  api_key: z.string().optional(),
  model: z.string().default(''),
  models: z.array(providerModelSchema).default([]),
  /** Other provider ids tried in order when this one fails before answering. */
  failover: z.array(id).default([]),
  /** Time limit of one whole call, retries and streaming included (default 120000 ms). */
  timeout_ms: z.int().positive().max(3_600_000).optional(),
  /** Time limit for the response headers of each attempt (default 30000 ms); past it the call is retried. */
  first_byte_timeout_ms: z.int().positive().max(3_600_000).optional(),
  /** Longest gap between two streamed chunks (default 60000 ms); past it the attempt fails (retried if nothing was streamed). */
  idle_timeout_ms: z.int().positive().max(3_600_000).optional(),
  /** Retries of a call that failed before streaming anything (429, 5xx, connection, malformed, time limits; default 3). */
  max_retries: z.int().min(0).max(10).optional(),
  /** What calls cost, per million tokens (usage and cost budgets). */
  pricing: pricingSchema.optional(),
  /** Context window of the provider's models in tokens (default 128,000), for compaction. */
  context_window: z.int().positive().max(100_000_000).optional(),
});

const policy = z.enum(['allow', 'allowlist', 'disabled']);

/**
 * The fields every channel account has. Each platform adds its own (credentials, API origin, mode),
 * declared once beside its adapter (channels/<platform>/account.ts), which checks them: the channel
 * manager for the file, the channels API for every write.
 */
export const commonAccountFields = {
  name: z.string().default(''),
  description: z.string().default(''),
  enabled: z.boolean().default(true),
  /** `pairing`: an unknown sender gets a code an admin approves (then it is added to allow_from). */
  dm_policy: z.enum([...policy.options, 'pairing']).default('allow'),
  group_policy: policy.default('allow'),
  allow_from: z.array(z.string()).default([]),
  /** api accounts: the agents this account's key may call (chat, MCP, A2A); absent means every agent. */
  agents: z.array(id).optional(),
  /** In groups, answer only messages that mention the bot (platforms that report mentions). */
  group_require_mention: z.boolean().optional(),
};

/** An account as the file holds it: the common fields, and its platform's, checked by the platform. */
export const accountSchema = z.looseObject(commonAccountFields);

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

/** Whose calls a budget counts: one agent, api account, channel (account), platform user, or all ({}). */
export const budgetScopeSchema = z.union([
  z.strictObject({ agent: id }),
  z.strictObject({ account: id }),
  z.strictObject({ channel: z.enum([...PLATFORMS, 'cron', 'rules']), accountId: id.optional() }),
  z.strictObject({ user: z.string().min(1).max(256) }),
  z.strictObject({}),
]);

export const budgetSchema = z
  .strictObject({
    id,
    scope: budgetScopeSchema.default({}),
    period: z.enum(['day', 'month']).default('day'),
    /** Tokens (input + output) per period. */
    tokens: z.int().positive().optional(),
    /** USD per period, from models.providers.<id>.pricing. */
    cost: z.number().positive().max(1e9).optional(),
    /** block: no model call once reached; warn: log and notify only. */
    action: z.enum(['block', 'warn']).default('block'),
    /** A chat told when 80% and 100% are reached. */
    notify: z
      .strictObject({
        platform: z.enum(PLATFORMS),
        accountId: id.optional(),
        chatId: z.string().min(1).max(256),
      })
      .optional(),
  })
  .refine((budget) => budget.tokens !== undefined || budget.cost !== undefined, {
    message: 'a budget needs tokens, cost or both',
  });

export const configSchema = z
  .strictObject({
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
        /** Also write log lines (JSON) to this file, rotated by size; relative to data.logs_dir. Empty: no file. */
        log_file: z.string().default(''),
        /** Size at which the log file is rotated, in MB. */
        log_file_max_mb: z.number().positive().max(10_000).default(10),
        /** Rotated log files kept (file.log.1 ... file.log.N). */
        log_file_keep: z.int().min(0).max(100).default(5),
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
          .refine(
            (url) => url === '' || /^postgres(ql)?:\/\//.test(url),
            'must be empty or a postgres:// URL',
          )
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
        /** Role, state and agents of users named in `users`; a user not listed is an enabled admin. */
        user_access: z
          .record(
            id,
            z.strictObject({
              role: z.enum(['admin', 'member']).default('admin'),
              disabled: z.boolean().default(false),
              /** The agents a member may chat with (admins use every agent). */
              agents: z.array(id).default([]),
            }),
          )
          .default({}),
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
        defaults: z.looseObject({ compaction: compactionSchema.optional() }).default({}),
        /** Time limit of one agent turn (HTTP, channels, cron, A2A), waiting for its session included, in ms. */
        turn_timeout_ms: z
          .int()
          .positive()
          .max(24 * 3_600_000)
          .default(600_000),
        /** Turns of one session waiting or running at most; one more is refused with a 429. */
        max_queued_turns: z.int().positive().max(1000).default(16),
      })
      .prefault({}),
    observability: z
      .strictObject({
        /** GET /metrics without credentials (for a scraper on a private network). */
        metrics_public: z.boolean().default(false),
        /** OTLP/HTTP collector (http://host:4318); empty: no traces (OTEL_EXPORTER_OTLP_ENDPOINT also sets it). */
        otlp_endpoint: z
          .string()
          .refine((url) => url === '' || /^https?:\/\//.test(url), 'must be empty or an http(s) URL')
          .default(''),
        /** Prompts, completions and tool arguments in spans (off: only sizes, models and timings). */
        capture_content: z.boolean().default(false),
        /**
         * Share of new traces recorded, 0 to 1 (a trace continued from a caller keeps the caller's
         * decision). Unset: OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, else every trace.
         */
        trace_sample_ratio: z.number().min(0).max(1).optional(),
      })
      .prefault({}),
    /** Memory search: the optional embeddings layer (config/memory.ts). */
    memory: memorySchema.prefault({}),
    channels: z.partialRecord(z.enum(PLATFORMS), platformSchema).default({}),
    bindings: z.array(bindingSchema).default([]),
    /** Spending limits per period (issue 24); ids are unique. */
    budgets: z
      .array(budgetSchema)
      .max(1000)
      .default([])
      .superRefine((budgets, context) => {
        const seen = new Set<string>();
        budgets.forEach((budget, index) => {
          if (seen.has(budget.id))
            context.addIssue({
              code: 'custom',
              path: [index, 'id'],
              message: `budget "${budget.id}" is listed twice`,
            });
          seen.add(budget.id);
        });
      }),
    /** Requests per minute; 0 is no limit. */
    rate_limits: z
      .strictObject({
        /** Chat requests per minute of each api account (key). */
        account_per_minute: z.int().min(0).max(1_000_000).default(0),
        /** Per api account overrides of account_per_minute. */
        accounts: z.record(id, z.int().min(0).max(1_000_000)).default({}),
        /** Messages per minute of each chat-platform user. */
        user_per_minute: z.int().min(0).max(1_000_000).default(0),
      })
      .prefault({}),
  })
  .superRefine((config, context) => {
    const embeddings = config.memory.embeddings;
    if (embeddings && !Object.hasOwn(config.models.providers, embeddings.provider))
      context.addIssue({
        code: 'custom',
        path: ['memory', 'embeddings', 'provider'],
        message: `names provider "${embeddings.provider}", which is not configured`,
      });
  });

export type Config = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type AccountConfig = z.infer<typeof accountSchema>;
export type BindingConfig = z.infer<typeof bindingSchema>;
export type BudgetConfig = z.infer<typeof budgetSchema>;
export type BudgetScope = z.infer<typeof budgetScopeSchema>;
export type PricingConfig = z.infer<typeof pricingSchema>;
