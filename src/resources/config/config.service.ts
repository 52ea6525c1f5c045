// Reading and writing the configuration through the API. Views never contain a secret; writes keep
// secrets the caller did not send, and never store their redacted form.
import type { ConfigStore } from '../../config/config-store.ts';
import type { Config } from '../../config/schema.ts';
import { conflict, invalid } from '../../core/errors.ts';
import { own } from '../../core/id-schema.ts';
import { redactUrlCredentials, restoreUrlCredentials } from '../../core/url-credentials.ts';
import { hashPassword, isPasswordHash } from '../../core/secrets.ts';
import { formatUserEntry, parseUserEntry } from '../../auth/users.ts';
import { providerView } from '../models/models.service.ts';
import type { ConfigPatch, ConfigUpdateAnswer, ConfigView } from './config.schema.ts';

/** Settings read only at start; changing them answers with restartRequired. */
const RESTART_KEYS = [
  ['server', 'host'],
  ['server', 'port'],
  ['server', 'body_limit'],
  ['data', 'root_dir'],
  ['data', 'logs_dir'],
  ['data', 'database_url'],
  ['cluster', 'redis_url'],
  ['cluster', 'key_prefix'],
  ['cluster', 'instance_id'],
  ['server', 'log_level'],
  ['security', 'loginRateLimit'],
  ['engine', 'script_timeout_ms'],
  ['engine', 'script_memory_mb'],
  ['engine', 'script_workers'],
  ['engine', 'model_workers'],
] as const;

/**
 * Keys whose values are secrets anywhere in the config (api_key, app_secret, token, encrypt_key,
 * signing_secret, jwtSecret, ...): views show `true` when one is set, and a view written back keeps
 * what is stored.
 */
const SECRET_KEY = /(secret|token|password|api_?key|encrypt_key|aes_key)$/i;

/** A copy of a config tree with every secret shown as set (true/false) and URL credentials as ***. */
function redactTree(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && SECRET_KEY.test(key)) return value !== '';
    return redactUrlCredentials(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactTree(item));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactTree(item, name)]));
  return value;
}

/**
 * The whole configuration, every section and key (so every key that can be set can be read), with
 * no secret: secrets are `true` when set, user passwords `true`, URL credentials `***`.
 */
/** The account fields a platform declares secret (channels/<platform>/account.ts). */
export type SecretFields = (platform: string) => readonly string[];

/** Channel accounts: besides the names above, every field the platform declares secret. */
function redactAccounts(config: Config, secretFields: SecretFields): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config.channels).map(([platform, section]) => {
      const declared = new Set(secretFields(platform));
      const accounts = Object.fromEntries(
        Object.entries(section?.accounts ?? {}).map(([id, account]) => [
          id,
          Object.fromEntries(
            Object.entries(account).map(([field, value]) => [
              field,
              declared.has(field) && typeof value === 'string' ? value !== '' : redactTree(value, field),
            ]),
          ),
        ]),
      );
      return [platform, { ...(redactTree(section) as object), accounts }];
    }),
  );
}

export function configView(config: Config, secretFields: SecretFields = () => []): ConfigView {
  const view = redactTree(config) as Record<string, unknown>;
  // Replacing a key keeps its place, so the sections come in the config's order.
  return {
    ...view,
    // No secret key in these three: URL credentials become ***, every value keeps its type.
    server: redactTree(config.server) as Config['server'],
    data: redactTree(config.data) as Config['data'],
    cluster: redactTree(config.cluster) as Config['cluster'],
    channels: redactAccounts(config, secretFields),
    models: {
      default_provider: config.models.default_provider,
      providers: Object.fromEntries(
        Object.entries(config.models.providers).map(([id, provider]) => {
          const { id: _id, default: _default, ...shown } = providerView(config, id);
          return [id, { ...(redactTree(provider) as object), ...shown }];
        }),
      ),
    },
    security: {
      ...(view['security'] as object),
      requireAuth: config.security.requireAuth,
      users: Object.fromEntries(Object.keys(config.security.users).map((name) => [name, true as const])),
    },
  };
}

/** Drops secrets sent back as views show them (true / false): what is stored stays. */
function dropShownSecrets(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropShownSecrets(item);
    return;
  }
  if (!isObject(value)) return;
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'boolean' && SECRET_KEY.test(name)) delete value[name];
    else dropShownSecrets(item);
  }
}

type Patch = Record<string, unknown>;

function isObject(value: unknown): value is Patch {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Drops the read-only fields of views (hasApiKey, hasSecret, id, default) and keeps the stored
 * credentials of a base_url shown redacted, so a GET can be PUT back.
 */
function stripViewFields(patch: Patch, config: Config, secretFields: SecretFields): Patch {
  const models = patch['models'];
  if (isObject(models) && isObject(models['providers'])) {
    for (const [id, provider] of Object.entries(models['providers'])) {
      if (!isObject(provider)) continue;
      for (const key of ['hasApiKey', 'id', 'default']) delete provider[key];
      const baseUrl = provider['base_url'];
      if (typeof baseUrl === 'string')
        provider['base_url'] = restoreUrlCredentials(baseUrl, own(config.models.providers, id)?.base_url);
    }
  }
  const data = patch['data'];
  if (isObject(data) && typeof data['database_url'] === 'string')
    data['database_url'] = restoreUrlCredentials(data['database_url'], config.data.database_url);
  const cluster = patch['cluster'];
  if (isObject(cluster) && typeof cluster['redis_url'] === 'string')
    cluster['redis_url'] = restoreUrlCredentials(cluster['redis_url'], config.cluster.redis_url);
  const channels = patch['channels'];
  if (isObject(channels)) {
    for (const [name, platform] of Object.entries(channels)) {
      const accounts = isObject(platform) ? platform['accounts'] : undefined;
      if (!isObject(accounts)) continue;
      const declared = secretFields(name);
      for (const account of Object.values(accounts)) {
        if (!isObject(account)) continue;
        delete account['hasSecret'];
        // A declared secret sent back as the view shows it (true / false): what is stored stays.
        for (const field of declared) if (typeof account[field] === 'boolean') delete account[field];
      }
    }
  }
  dropShownSecrets(patch);
  return patch;
}

export class ConfigService {
  constructor(
    private readonly store: ConfigStore,
    private readonly secretFields: SecretFields = () => [],
  ) {}

  view() {
    return configView(this.store.current, this.secretFields);
  }

  /** Deep-merges a partial configuration; the whole result is validated before anything is written. */
  async update(patch: ConfigPatch): Promise<ConfigUpdateAnswer> {
    const body = stripViewFields(structuredClone(patch) as Patch, this.store.current, this.secretFields);
    const security = isObject(body['security']) ? body['security'] : undefined;
    const users = security && isObject(security['users']) ? security['users'] : undefined;
    if (security && users) delete security['users'];
    const passwords = new Map<string, string | null>();
    for (const [name, value] of Object.entries(users ?? {})) {
      if (value === true) continue; // the redacted form: keep what is stored
      if (value === null || value === false) passwords.set(name, null);
      else if (typeof value === 'string' && value.length > 0 && !value.includes(':'))
        passwords.set(name, isPasswordHash(value) ? value : await hashPassword(value));
      else
        throw invalid(
          `security.users.${name}: must be a password (without ":"), true to keep, or null to remove`,
        );
    }
    const before = this.store.current;
    const after = await this.store.update((editor, current) => {
      editor.merge([], body);
      for (const [name, password] of passwords) {
        if (password === null) {
          editor.delete(['security', 'users', name]);
          continue;
        }
        const existing = own(current.security.users, name);
        const apiKey = existing === undefined ? undefined : parseUserEntry(name, existing).apiKey;
        editor.set(['security', 'users', name], formatUserEntry({ password, apiKey }));
      }
      const remaining = { ...current.security.users };
      for (const [name, password] of passwords) if (password === null) delete remaining[name];
      if (
        passwords.size > 0 &&
        Object.keys(remaining).length === 0 &&
        ![...passwords.values()].some(Boolean)
      ) {
        throw conflict('security.users: the last user cannot be removed');
      }
    });
    return answer('saved', before, after);
  }

  /** Re-reads the file (edited by hand); a broken file is a 400 and the running config stays. */
  async reload(): Promise<ConfigUpdateAnswer> {
    const before = this.store.current;
    return answer('reloaded', before, await this.store.reload());
  }
}

function answer(done: string, before: Config, after: Config): ConfigUpdateAnswer {
  const restartRequired = RESTART_KEYS.filter(([section, key]) => {
    const a = (before[section] as Record<string, unknown>)[key];
    const b = (after[section] as Record<string, unknown>)[key];
    return a !== b;
  }).map((path) => path.join('.'));
  return {
    success: true,
    message: restartRequired.length > 0 ? `${done}; restart to apply ${restartRequired.join(', ')}` : done,
    restartRequired,
  };
}
