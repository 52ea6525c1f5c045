// A fake OpenAI-compatible `POST /v1/embeddings` on 127.0.0.1: deterministic hashed bag-of-words
// vectors where planted synonyms share a word (so "automobile" is close to "car" and a paraphrase
// the keyword index misses is found), call and input counts, and failure modes. Never a model.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

/** ok: vectors. down: 503 whose body echoes the request's Authorization header. hang: never answers. */
export type FakeEmbeddingsMode = 'ok' | 'down' | 'hang';

export interface FakeEmbeddings {
  /** http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  mode: FakeEmbeddingsMode;
  /** Successful and failed requests. */
  calls: number;
  /** Every text embedded (successful requests only), in order. */
  inputs: string[];
  /** The models requested. */
  models: string[];
  close(): Promise<void>;
}

export interface FakeEmbeddingsOptions {
  /** Vector length when the request asks for none (default 256). */
  dimensions?: number;
  /** Word → the word it counts as (default: the planted set below). */
  synonyms?: Record<string, string>;
  /** The key requests must carry (401 otherwise); undefined: any. */
  apiKey?: string;
}

/** Planted synonyms: each maps to the word it is counted as. */
export const PLANTED_SYNONYMS: Record<string, string> = {
  automobile: 'car',
  vehicle: 'car',
  based: 'live',
  reside: 'live',
  resides: 'live',
  city: 'live',
  home: 'live',
  beverage: 'drink',
  employer: 'work',
  employs: 'work',
  employ: 'work',
  job: 'work',
  company: 'work',
  animal: 'pet',
  keep: 'pet',
  keeps: 'pet',
};

const STOPWORDS = new Set(
  'a an and are as at be by did do does for from has have in is it of on or the their them they to was what where which who with'.split(
    ' ',
  ),
);

function stem(word: string): string {
  for (const suffix of ['ing', 's'])
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  return word;
}

/** The fake's vector of a text: signed hashed counts of its (synonym-mapped, stemmed) words, unit length. */
export function fakeVector(text: string, dimensions: number, synonyms = PLANTED_SYNONYMS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const raw = match[0];
    if (STOPWORDS.has(raw)) continue;
    const word = stem(synonyms[raw] ?? raw);
    const mapped = synonyms[word] ?? word;
    const digest = createHash('sha256').update(mapped).digest();
    const bucket = digest.readUInt32BE(0) % dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + ((digest[4] ?? 0) & 1 ? 1 : -1);
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  // An empty text still gets a unit vector, as real models give one.
  if (length === 0) return vector.map((_, index) => (index === 0 ? 1 : 0));
  return vector.map((value) => value / length);
}

async function body(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const open = new Set<ServerResponse>();
  const state: FakeEmbeddings = {
    baseUrl: '',
    mode: 'ok',
    calls: 0,
    inputs: [],
    models: [],
    close: () => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    void (async () => {
      const text = await body(request);
      state.calls += 1;
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
        response.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      if (state.mode === 'hang') {
        open.add(response);
        return;
      }
      if (state.mode === 'down') {
        response
          .writeHead(503, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ error: { message: `overloaded; you sent ${request.headers.authorization}` } }),
          );
        return;
      }
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        response.writeHead(401).end('{"error":{"message":"bad key"}}');
        return;
      }
      const parsed = JSON.parse(text) as { model: string; input: string | string[]; dimensions?: number };
      const inputs = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
      const dimensions = parsed.dimensions ?? options.dimensions ?? 256;
      state.inputs.push(...inputs);
      state.models.push(parsed.model);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model: parsed.model,
          data: inputs.map((input, index) => ({
            object: 'embedding',
            index,
            embedding: fakeVector(input, dimensions, options.synonyms),
          })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    for (const response of open) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
