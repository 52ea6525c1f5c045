// Model provider configuration: the models section of the config file, edited through the API.
import type { ConfigStore } from '../../config/config-store.ts';
import type { Config } from '../../config/schema.ts';
import { conflict, errorMessage, notFound } from '../../core/errors.ts';
import { own } from '../../core/id-schema.ts';
import { redactUrlCredentials, restoreUrlCredentials } from '../../core/url-credentials.ts';
import {
  createOpenAICompatibleProvider,
  type OpenAICompatibleOptions,
} from '../../model-providers/openai-compatible.ts';
import type { ModelProvider } from '../../model-providers/types.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import type {
  ConnectionTestAnswer,
  DefaultProviderBody,
  ModelsSummary,
  ProviderBody,
  ProviderPatch,
  ProviderView,
} from './models.schema.ts';

/** A provider as the API shows it: no key (hasApiKey), credentials in base_url redacted. */
export function providerView(config: Config, id: string): ProviderView {
  const provider = own(config.models.providers, id);
  if (!provider) throw notFound(`model provider "${id}" not found`);
  return {
    id,
    name: provider.name ?? id,
    base_url: redactUrlCredentials(provider.base_url),
    model: provider.model,
    models: provider.models,
    failover: provider.failover,
    ...(provider.pricing ? { pricing: provider.pricing } : {}),
    hasApiKey: Boolean(provider.api_key),
    default: config.models.default_provider === id,
  };
}

function definedEntries(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** A connection test waits at most this long, whatever the provider's own time limit. */
export const CONNECTION_TEST_TIMEOUT_MS = 20_000;

export class ModelsService {
  constructor(
    private readonly store: ConfigStore,
    /** Builds the provider a connection test talks to (tests may hand in their own fetch). */
    private readonly connect: (
      options: OpenAICompatibleOptions,
    ) => ModelProvider = createOpenAICompatibleProvider,
  ) {}

  list(): ProviderView[] {
    const config = this.store.current;
    return Object.keys(config.models.providers).map((id) => providerView(config, id));
  }

  get(id: string): ProviderView {
    return providerView(this.store.current, id);
  }

  /** The default provider's settings, or the demo model when none is configured. */
  summary(): ModelsSummary {
    const config = this.store.current;
    const id = config.models.default_provider;
    const current = id ? own(config.models.providers, id) : undefined;
    return {
      default: id,
      model: current?.model ?? 'demo',
      base_url: redactUrlCredentials(current?.base_url ?? ''),
      hasApiKey: Boolean(current?.api_key),
      demo: !current,
      providers: this.list(),
    };
  }

  /**
   * PUT /config/models: `default` chooses the default provider (created when it does not exist and a
   * base_url is given); model, api_key and base_url then apply to that provider.
   */
  async updateDefault(body: DefaultProviderBody): Promise<ModelsSummary> {
    await this.store.update((editor, current) => {
      const id = body.default || current.models.default_provider;
      if (!id) throw notFound('no default provider is configured; name one in "default" with a base_url');
      const exists = own(current.models.providers, id) !== undefined;
      if (!exists && !body.base_url)
        throw notFound(`model provider "${id}" not found; send base_url to create it`);
      editor.merge(
        ['models', 'providers', id],
        definedEntries({
          model: body.model,
          api_key: body.api_key,
          base_url:
            body.base_url === undefined
              ? undefined
              : restoreUrlCredentials(body.base_url, own(current.models.providers, id)?.base_url),
        }),
      );
      editor.set(['models', 'default_provider'], id);
    });
    return this.summary();
  }

  async create(input: ProviderBody): Promise<ProviderView> {
    await this.store.update((editor, current) => {
      if (own(current.models.providers, input.id))
        throw conflict(`model provider "${input.id}" already exists`);
      const { id, ...fields } = input;
      editor.set(['models', 'providers', id], definedEntries(fields));
      // The first provider becomes the default, so configuring one provider is enough to leave demo mode.
      if (!current.models.default_provider) editor.set(['models', 'default_provider'], id);
    });
    return this.get(input.id);
  }

  async update(id: string, patch: ProviderPatch): Promise<ProviderView> {
    await this.store.update((editor, current) => {
      const stored = own(current.models.providers, id);
      if (!stored) throw notFound(`model provider "${id}" not found`);
      const baseUrl =
        patch.base_url === undefined ? undefined : restoreUrlCredentials(patch.base_url, stored.base_url);
      editor.merge(['models', 'providers', id], definedEntries({ ...patch, base_url: baseUrl }));
    });
    return this.get(id);
  }

  async setApiKey(id: string, apiKey: string): Promise<ProviderView> {
    return this.update(id, { api_key: apiKey });
  }

  async remove(id: string): Promise<void> {
    await this.store.update((editor, current) => {
      if (!own(current.models.providers, id)) throw notFound(`model provider "${id}" not found`);
      if (current.models.default_provider === id) {
        throw conflict(`model provider "${id}" is the default provider; choose another default first`);
      }
      const user = Object.entries(current.models.providers).find(([, p]) => p.failover.includes(id));
      if (user) throw conflict(`model provider "${id}" is in the failover list of "${user[0]}"`);
      editor.delete(['models', 'providers', id]);
    });
  }

  /**
   * Sends one tiny chat request ("ping", at most one token) to the provider as configured, without
   * retries or failover, and answers whether it worked and how long it took. The key is masked in
   * any error the provider echoes.
   */
  async testConnection(id: string): Promise<ConnectionTestAnswer> {
    const provider = own(this.store.current.models.providers, id);
    if (!provider) throw notFound(`model provider "${id}" not found`);
    const model = provider.model;
    const client = this.connect({
      id,
      baseUrl: provider.base_url,
      ...(provider.api_key ? { apiKey: provider.api_key } : {}),
      model,
      timeoutMs: Math.min(provider.timeout_ms ?? CONNECTION_TEST_TIMEOUT_MS, CONNECTION_TEST_TIMEOUT_MS),
      maxRetries: 0,
    });
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    try {
      const events = client.stream({
        model,
        messages: [{ role: 'user', content: 'ping' }],
        params: { maxTokens: 1 },
        signal: AbortSignal.timeout(CONNECTION_TEST_TIMEOUT_MS + 1000),
      });
      for await (const event of events) if (event.type === 'finish') break;
      return { ok: true, latencyMs: elapsed(), model };
    } catch (error) {
      return {
        ok: false,
        latencyMs: elapsed(),
        model,
        error: scrubSecrets(errorMessage(error), [provider.api_key]),
      };
    }
  }

  async reload(): Promise<ModelsSummary> {
    await this.store.reload();
    return this.summary();
  }
}
