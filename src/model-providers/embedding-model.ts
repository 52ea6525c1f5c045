// The embedding model memory search uses, from the current configuration (`memory.embeddings`
// naming a provider of `models.providers`). Rebuilt only when the settings or the provider's
// address or key change, so a config reload takes effect at the next index pass or search.
import type { Logger } from '../core/logger.ts';
import { createEmbeddingClient } from './embeddings.ts';

export interface EmbeddingModel {
  /** Names the vector space (provider, model, asked dimensions): vectors of another key are not comparable. */
  key: string;
  /** The provider's id, for logs. */
  provider: string;
  batchSize: number;
  timeoutMs: number;
  queryTimeoutMs: number;
  minSimilarity: number;
  embed(texts: string[], options: { timeoutMs: number }): Promise<number[][]>;
}

export interface EmbeddingSettings {
  providers: Record<string, { base_url: string; api_key?: string | undefined }>;
  embeddings?:
    | {
        provider: string;
        model: string;
        dimensions?: number | undefined;
        batch_size: number;
        timeout_ms: number;
        query_timeout_ms: number;
        min_similarity: number;
      }
    | undefined;
}

export interface EmbeddingModelOptions {
  /** Clustered mode (PostgreSQL): no vector search there, so configured embeddings are unused. */
  keywordOnly?: boolean;
  logger: Logger;
  /** An in-process fetch (tests). */
  fetch?: typeof fetch;
}

/** A function giving the embedding model in force, or undefined when embeddings are off. */
export function embeddingModelSource(
  read: () => EmbeddingSettings,
  options: EmbeddingModelOptions,
): () => EmbeddingModel | undefined {
  let built: { signature: string; model: EmbeddingModel } | undefined;
  let warned = false;
  return () => {
    const { providers, embeddings } = read();
    if (!embeddings) return undefined;
    if (options.keywordOnly) {
      if (!warned)
        options.logger.info(
          { provider: embeddings.provider },
          'memory.embeddings is set but unused: the PostgreSQL database has no vector search; memory search is keyword-only',
        );
      warned = true;
      return undefined;
    }
    const provider = Object.hasOwn(providers, embeddings.provider)
      ? providers[embeddings.provider]
      : undefined;
    if (!provider) return undefined;
    const signature = JSON.stringify([embeddings, provider.base_url, provider.api_key ?? '']);
    if (built?.signature === signature) return built.model;
    const client = createEmbeddingClient({
      id: embeddings.provider,
      baseUrl: provider.base_url,
      apiKey: provider.api_key,
      model: embeddings.model,
      dimensions: embeddings.dimensions,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const model: EmbeddingModel = {
      key: `${embeddings.provider}/${embeddings.model}#${embeddings.dimensions ?? 'default'}`,
      provider: embeddings.provider,
      batchSize: embeddings.batch_size,
      timeoutMs: embeddings.timeout_ms,
      queryTimeoutMs: embeddings.query_timeout_ms,
      minSimilarity: embeddings.min_similarity,
      embed: (texts, call) => client.embed(texts, call),
    };
    built = { signature, model };
    return model;
  };
}
