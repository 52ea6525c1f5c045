// The optional embeddings layer of memory search: `memory.embeddings` in the config file. Unset,
// memory search is keyword-only (the default). Set, memory chunks are embedded through the named
// provider's OpenAI-compatible /embeddings endpoint and vector hits are fused with keyword hits.
import { z } from 'zod';
import { idSchema } from '../core/id-schema.ts';

export const memoryEmbeddingsSchema = z.strictObject({
  /** The id of a configured provider (models.providers.<id>): its base_url and api_key are used. */
  provider: idSchema,
  /** The embedding model at that provider, e.g. text-embedding-3-small. */
  model: z.string().min(1).max(200),
  /** Asked of the provider (models that can shorten their vectors); default: the model's own. */
  dimensions: z.int().min(1).max(8192).optional(),
  /** Chunks sent in one request (default 64). */
  batch_size: z.int().min(1).max(2048).default(64),
  /** Time limit of one indexing request (default 30000 ms). */
  timeout_ms: z.int().positive().max(600_000).default(30_000),
  /** Time limit of embedding a search query; past it the search is keyword-only (default 2000 ms). */
  query_timeout_ms: z.int().positive().max(60_000).default(2000),
  /**
   * Least cosine similarity of a hit found by its vector alone (no keyword ranking found it). Such a
   * hit must also hold a query word and every name or number the query holds (default 0.5).
   */
  min_similarity: z.number().min(-1).max(1).default(0.5),
});

export const memorySchema = z.strictObject({
  /** Off when unset: keyword search only. */
  embeddings: memoryEmbeddingsSchema.optional(),
});

export type MemoryEmbeddingsConfig = z.infer<typeof memoryEmbeddingsSchema>;
