import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import { createDemoProvider } from './demo.ts';
import { createFailoverProvider } from './failover.ts';
import type { ModelThreads } from './model-threads.ts';
import { createOpenAICompatibleProvider } from './openai-compatible.ts';
import type { ModelProvider } from './types.ts';

/** One entry of `models.providers` in config.yaml. */
export interface ProviderConfig {
  name?: string | undefined;
  base_url: string;
  api_key?: string | undefined;
  model: string;
  models?: Array<{ name: string; alias?: string | undefined; pricing?: Pricing | undefined }> | undefined;
  /** Other provider ids to try, in order, when this one fails before answering. */
  failover?: string[] | undefined;
  timeout_ms?: number | undefined;
  first_byte_timeout_ms?: number | undefined;
  idle_timeout_ms?: number | undefined;
  max_retries?: number | undefined;
  pricing?: Pricing | undefined;
}

/** USD per million tokens. */
export interface Pricing {
  input: number;
  cached_input?: number | undefined;
  output: number;
}

/** Wraps every provider the registry builds, so each call is budgeted and recorded (usage/meter.ts). */
export interface ModelMeter {
  /** `entry`: the provider's configuration; undefined for the demo model. */
  wrap(provider: ModelProvider, entry: ProviderConfig | undefined): ModelProvider;
}

/** The `models` section of config.yaml. */
export interface ModelsConfig {
  default_provider?: string | undefined;
  providers?: Record<string, ProviderConfig> | undefined;
}

export interface ModelRegistryOptions {
  /** Runs provider calls on these worker threads; without it (or with `fetch`) they run in-process. */
  threads?: ModelThreads;
  /** An in-process fetch for the providers (tests); providers then run on the main thread. */
  fetch?: typeof fetch;
  maxRetries?: number;
  retryBaseMs?: number;
  /** Meters every call (usage, budgets); without it calls are not recorded. */
  meter?: ModelMeter;
}

// Agents that name their own url/key get a provider each; this bounds how many are kept.
const MAX_CUSTOM_PROVIDERS = 64;

/**
 * The configured model providers, looked up by id. With none configured, every lookup of the
 * default gives the demo provider.
 */
export class ModelRegistry {
  private providers = new Map<string, ModelProvider>();
  private configs: Record<string, ProviderConfig> = {};
  private defaultProvider: string | undefined;
  private configProblems: string[] = [];
  private readonly custom = new Map<string, ModelProvider>();
  private readonly demo: ModelProvider;

  constructor(
    config: ModelsConfig,
    private readonly options: ModelRegistryOptions = {},
  ) {
    this.demo = options.meter ? options.meter.wrap(createDemoProvider(), undefined) : createDemoProvider();
    this.replace(config);
  }

  /**
   * Rebuilds every provider from a new configuration (hot reload). References to providers that
   * do not exist (a failover entry, the default) are skipped and reported by `problems()`.
   */
  replace(config: ModelsConfig): void {
    const configs = config.providers ?? {};
    const problems: string[] = [];
    const base = new Map<string, ModelProvider>();
    for (const [id, entry] of Object.entries(configs)) base.set(id, this.build(id, entry));
    const providers = new Map<string, ModelProvider>();
    for (const [id, entry] of Object.entries(configs)) {
      const chain = [base.get(id) as ModelProvider];
      for (const next of entry.failover ?? []) {
        const fallback = base.get(next);
        const nextConfig = configs[next];
        if (fallback && nextConfig && next !== id) chain.push(withKnownModels(fallback, nextConfig));
        else problems.push(`model provider "${id}" fails over to unknown provider "${next}"`);
      }
      providers.set(id, createFailoverProvider(chain));
    }
    const defaultProvider = config.default_provider || undefined;
    if (defaultProvider !== undefined && providers.size > 0 && !providers.has(defaultProvider)) {
      problems.push(
        `default model provider "${defaultProvider}" is not configured; using "${[...providers.keys()][0]}"`,
      );
    }
    this.providers = providers;
    this.configs = configs;
    this.defaultProvider =
      defaultProvider !== undefined && providers.has(defaultProvider) ? defaultProvider : undefined;
    this.configProblems = problems;
    this.custom.clear();
  }

  /** What was wrong with the last configuration, for the caller to log. */
  problems(): string[] {
    return [...this.configProblems];
  }

  /** A provider by id; no id means the default one (the demo provider when none is configured). */
  get(id?: string): ModelProvider {
    if (!id) {
      if (this.providers.size === 0) return this.demo;
      const fallback = this.defaultProvider ?? (this.providers.keys().next().value as string);
      return this.get(fallback);
    }
    const provider = this.providers.get(id);
    if (provider) return provider;
    if (id === this.demo.id) return this.demo;
    throw new AppError('not-found', `model provider "${id}" is not configured`);
  }

  /**
   * The provider for an agent node's own url and key: a configured provider when they match
   * one, otherwise one built for them (kept, keyed by a hash of url and key).
   */
  resolve(target: {
    url?: string | undefined;
    key?: string | undefined;
    model?: string | undefined;
  }): ModelProvider {
    const url = target.url?.trim().replace(/\/+$/u, '') ?? '';
    if (url === '') return this.get();
    const key = target.key ?? '';
    for (const [id, entry] of Object.entries(this.configs)) {
      if (entry.base_url.replace(/\/+$/u, '') === url && (key === '' || key === (entry.api_key ?? ''))) {
        return this.get(id);
      }
    }
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      throw new AppError('invalid', 'the model provider url is not a valid URL');
    }
    const cacheKey = createHash('sha256')
      .update(`${url}\n${key}\n${target.model ?? ''}`)
      .digest('hex');
    const cached = this.custom.get(cacheKey);
    if (cached) return cached;
    const provider = this.build(`custom:${host}`, { base_url: url, api_key: key, model: target.model ?? '' });
    if (this.custom.size >= MAX_CUSTOM_PROVIDERS)
      this.custom.delete(this.custom.keys().next().value as string);
    this.custom.set(cacheKey, provider);
    return provider;
  }

  /** True when no provider is configured, so answers come from the demo model. */
  isDemo(): boolean {
    return this.providers.size === 0;
  }

  /** Ids of the configured providers, in configuration order. */
  ids(): string[] {
    return [...this.providers.keys()];
  }

  private build(id: string, entry: ProviderConfig): ModelProvider {
    const provider = this.buildUnmetered(id, entry);
    return this.options.meter ? this.options.meter.wrap(provider, entry) : provider;
  }

  private buildUnmetered(id: string, entry: ProviderConfig): ModelProvider {
    const aliases = Object.fromEntries(
      (entry.models ?? []).flatMap((model) => (model.alias ? [[model.alias, model.name] as const] : [])),
    );
    const options = {
      id,
      baseUrl: entry.base_url,
      model: entry.model,
      aliases,
      ...(entry.api_key ? { apiKey: entry.api_key } : {}),
      ...(entry.timeout_ms === undefined ? {} : { timeoutMs: entry.timeout_ms }),
      ...(entry.first_byte_timeout_ms === undefined
        ? {}
        : { firstByteTimeoutMs: entry.first_byte_timeout_ms }),
      ...(entry.idle_timeout_ms === undefined ? {} : { idleTimeoutMs: entry.idle_timeout_ms }),
      ...(this.options.maxRetries === undefined ? {} : { maxRetries: this.options.maxRetries }),
      ...(entry.max_retries === undefined ? {} : { maxRetries: entry.max_retries }),
      ...(this.options.retryBaseMs === undefined ? {} : { retryBaseMs: this.options.retryBaseMs }),
    };
    if (this.options.fetch) return createOpenAICompatibleProvider({ ...options, fetch: this.options.fetch });
    if (this.options.threads) return this.options.threads.provider(options);
    return createOpenAICompatibleProvider(options);
  }
}

// A fallback provider is asked for the requested model only if it serves it; otherwise for its
// own default, since another provider's model name would mean nothing to it.
function withKnownModels(provider: ModelProvider, entry: ProviderConfig): ModelProvider {
  const known = new Set([
    entry.model,
    ...(entry.models ?? []).flatMap((model) => [model.name, model.alias ?? '']),
  ]);
  return {
    id: provider.id,
    demo: provider.demo,
    stream: (request) => provider.stream(known.has(request.model) ? request : { ...request, model: '' }),
  };
}
