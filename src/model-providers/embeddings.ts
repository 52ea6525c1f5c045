// A client of an OpenAI-compatible `POST {base_url}/embeddings` endpoint, for the optional
// embeddings layer of memory search. It goes through the same keep-alive fetch as the chat
// providers, with a time limit per call, and every failure it reports is cut and key-free.
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { nodeHttpFetch } from './node-http-fetch.ts';
import { cleanReason } from './upstream-failure.ts';

export interface EmbeddingClientOptions {
  /** The provider's id, named in errors. */
  id: string;
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** Asked of the provider when set; every vector must then have this length. */
  dimensions?: number | undefined;
  fetch?: typeof fetch;
}

export interface EmbeddingClient {
  /** One vector per text, in order. Throws an `upstream` (or `timeout`) AppError. */
  embed(texts: string[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<number[][]>;
}

const responseSchema = z.object({
  data: z.array(z.object({ index: z.int().min(0).optional(), embedding: z.array(z.number()).min(1) })).min(1),
});

/** Bytes of an error body read for its reason; the rest is dropped. */
const MAX_ERROR_BODY = 2000;
/** Largest response accepted (2,048 vectors of 3,072 floats as JSON fit well below it). */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function createEmbeddingClient(options: EmbeddingClientOptions): EmbeddingClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const fetcher = options.fetch ?? nodeHttpFetch;
  const fail = (reason: string): AppError =>
    new AppError(
      'upstream',
      `embedding provider "${options.id}" failed: ${cleanReason(reason, options.apiKey)}`,
    );
  return {
    async embed(texts, { timeoutMs, signal }) {
      if (texts.length === 0) return [];
      const limit = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, limit]) : limit;
      let response: Response;
      let text: string;
      try {
        response = await fetcher(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: options.model,
            input: texts,
            encoding_format: 'float',
            ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
          }),
          signal: combined,
        });
        const length = Number(response.headers.get('content-length') ?? 0);
        if (length > MAX_RESPONSE_BYTES) throw new Error(`response of ${length} bytes is too large`);
        text = await response.text();
      } catch (error) {
        if (limit.aborted && !signal?.aborted)
          throw new AppError('timeout', `embedding provider "${options.id}" timed out after ${timeoutMs} ms`);
        throw fail(`connection error (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!response.ok)
        throw fail(`${response.status} ${response.statusText} ${text.slice(0, MAX_ERROR_BODY)}`.trim());
      let parsed: z.infer<typeof responseSchema>;
      try {
        parsed = responseSchema.parse(JSON.parse(text));
      } catch {
        throw fail('malformed response');
      }
      return ordered(parsed.data, texts.length, options.dimensions, fail);
    },
  };
}

/** The vectors in input order, checked: one per text, all of one length (the asked one if any). */
function ordered(
  data: Array<{ index?: number | undefined; embedding: number[] }>,
  count: number,
  dimensions: number | undefined,
  fail: (reason: string) => AppError,
): number[][] {
  if (data.length !== count) throw fail(`${data.length} vectors for ${count} inputs`);
  const vectors: Array<number[] | undefined> = new Array<number[] | undefined>(count);
  data.forEach((entry, position) => {
    const index = entry.index ?? position;
    if (index >= count || vectors[index]) throw fail('vectors with wrong or repeated indexes');
    vectors[index] = entry.embedding;
  });
  const length = dimensions ?? vectors[0]?.length ?? 0;
  for (const vector of vectors) {
    if (!vector || vector.length !== length) throw fail('vectors of different lengths');
    if (!vector.every(Number.isFinite)) throw fail('a vector holds a value that is not a number');
  }
  return vectors as number[][];
}
