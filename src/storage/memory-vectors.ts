// The optional embeddings layer of memory search, on libsql: vectors of memory chunks cached by
// (model, text hash) in `memory_vectors`, filled in the background after each index pass, and the
// nearest chunks of an agent to a query by cosine (`vector_distance_cos`, an exact scan of that
// agent's chunks). Nothing here can fail a search or a write: a failure is logged (key-free) and
// the chunks stay pending for the next pass; a query that cannot be embedded is keyword-only.
import { sql } from 'kysely';
import type { Logger } from '../core/logger.ts';
import type { EmbeddingModel } from '../model-providers/embedding-model.ts';
import type { Db } from './database.ts';

export interface VectorHit {
  id: number;
  source: string;
  startLine: number;
  endLine: number;
  at: number;
  text: string;
  /** Cosine similarity to the query, -1..1. */
  similarity: number;
}

export interface MemoryVectorsOptions {
  logger: Logger;
  /** Least time between two passes of an agent after a failed one (default 10 s). */
  retryMs?: number;
  now?: () => number;
}

interface AgentState {
  pending: boolean;
  /** The model whose vectors the last finished pass left complete. */
  doneFor: string | undefined;
  running: Promise<void> | undefined;
  failedAt: number | undefined;
}

/** Characters of a chunk sent to be embedded (a chunk is at most 8 lines; a line can be long). */
const MAX_TEXT_CHARS = 8000;
const QUERY_CACHE_SIZE = 256;
/** Passes end after this many batches; the rest waits for the next pass. */
const MAX_BATCHES_PER_PASS = 1000;

export class MemoryVectors {
  private readonly agents = new Map<string, AgentState>();
  private readonly queries = new Map<string, number[]>();
  private readonly failing = { index: false, query: false };
  private prunedFor: string | undefined;

  constructor(
    private readonly db: Db,
    private readonly model: () => EmbeddingModel | undefined,
    private readonly options: MemoryVectorsOptions,
  ) {}

  /** Whether embeddings are configured (and usable on this database) right now. */
  enabled(): boolean {
    return this.model() !== undefined;
  }

  /** The agent's chunks changed: the next pass looks for ones without a vector. */
  markPending(agentId: string): void {
    this.state(agentId).pending = true;
  }

  /** Starts a background pass for the agent when chunks may lack vectors; never waits for it. */
  schedule(agentId: string): void {
    const state = this.state(agentId);
    if (state.running) return;
    const model = this.model();
    // Another model or dimension (a config reload) is another vector space: every chunk is pending.
    if (!model || (!state.pending && state.doneFor === model.key)) return;
    const now = (this.options.now ?? Date.now)();
    if (state.failedAt !== undefined && now - state.failedAt < (this.options.retryMs ?? 10_000)) return;
    state.pending = false;
    state.running = this.pass(agentId, model)
      .then(() => {
        state.failedAt = undefined;
        state.doneFor = model.key;
        this.recovered('index', model);
      })
      .catch((error: unknown) => {
        state.pending = true;
        state.failedAt = (this.options.now ?? Date.now)();
        this.failed('index', model, error);
      })
      .finally(() => {
        state.running = undefined;
      });
  }

  /** Resolves when the agent's pass in progress (if any) has ended. For tests and benchmarks. */
  async settled(agentId: string): Promise<void> {
    await this.agents.get(agentId)?.running;
  }

  /**
   * The agent's `limit` chunks nearest to the query, best first; undefined when embeddings are
   * off or the query could not be embedded in time (the search is then keyword-only).
   */
  async nearest(agentId: string, query: string, limit: number): Promise<VectorHit[] | undefined> {
    const model = this.model();
    if (!model) return undefined;
    const vector = await this.embedQuery(model, query);
    if (!vector) return undefined;
    const { rows } = await sql<{
      id: number;
      source: string;
      start_line: number;
      end_line: number;
      at: number;
      text: string;
      distance: number;
    }>`select d.id, d.source, d.start_line, d.end_line, d.at, d.text,
        vector_distance_cos(v.vector, vector32(${JSON.stringify(vector)})) as distance
      from search_documents d
      join memory_vectors v on v.model = ${model.key} and v.hash = d.content_hash
      where d.corpus = 'memory' and d.agent_id = ${agentId} and v.dimensions = ${vector.length}
      order by distance limit ${limit}`.execute(this.db);
    return rows.map((row) => ({
      id: Number(row.id),
      source: row.source,
      startLine: Number(row.start_line),
      endLine: Number(row.end_line),
      at: Number(row.at),
      text: row.text,
      similarity: 1 - Number(row.distance),
    }));
  }

  /** The model in force, for the search's thresholds. */
  current(): EmbeddingModel | undefined {
    return this.model();
  }

  private state(agentId: string): AgentState {
    let state = this.agents.get(agentId);
    if (!state) {
      // A new process does not know what the database holds: the first pass looks.
      state = { pending: true, doneFor: undefined, running: undefined, failedAt: undefined };
      this.agents.set(agentId, state);
    }
    return state;
  }

  private async embedQuery(model: EmbeddingModel, query: string): Promise<number[] | undefined> {
    const cacheKey = `${model.key}\u0000${query}`;
    const known = this.queries.get(cacheKey);
    if (known) return known;
    try {
      const [vector] = await model.embed([query.slice(0, MAX_TEXT_CHARS)], {
        timeoutMs: model.queryTimeoutMs,
      });
      if (!vector) return undefined;
      if (this.queries.size >= QUERY_CACHE_SIZE)
        this.queries.delete(this.queries.keys().next().value as string);
      this.queries.set(cacheKey, vector);
      this.recovered('query', model);
      return vector;
    } catch (error) {
      this.failed('query', model, error);
      return undefined;
    }
  }

  /** Embeds the agent's chunks that have no vector of this model yet, batch by batch. */
  private async pass(agentId: string, model: EmbeddingModel): Promise<void> {
    await this.prune(model);
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch += 1) {
      const { rows } = await sql<{ hash: string; text: string }>`
        select d.content_hash as hash, min(d.text) as text from search_documents d
        where d.corpus = 'memory' and d.agent_id = ${agentId} and d.content_hash is not null
          and not exists (select 1 from memory_vectors v where v.model = ${model.key} and v.hash = d.content_hash)
        group by d.content_hash limit ${model.batchSize}`.execute(this.db);
      if (rows.length === 0) return;
      const vectors = await model.embed(
        rows.map((row) => row.text.slice(0, MAX_TEXT_CHARS)),
        { timeoutMs: model.timeoutMs },
      );
      const now = (this.options.now ?? Date.now)();
      await this.db.transaction().execute(async (trx) => {
        for (const [index, row] of rows.entries()) {
          const vector = vectors[index] as number[];
          await sql`insert into memory_vectors (model, hash, dimensions, vector, created_at)
            values (${model.key}, ${row.hash}, ${vector.length}, vector32(${JSON.stringify(vector)}), ${now})
            on conflict (model, hash) do nothing`.execute(trx);
        }
      });
    }
    this.markPending(agentId);
  }

  /** Drops vectors of other models (a model or dimension change re-embeds) and of chunks gone. */
  private async prune(model: EmbeddingModel): Promise<void> {
    if (this.prunedFor !== model.key) {
      this.prunedFor = model.key;
      await this.db.deleteFrom('memory_vectors').where('model', '<>', model.key).execute();
    }
    await sql`delete from memory_vectors where not exists
      (select 1 from search_documents d where d.content_hash = memory_vectors.hash)`.execute(this.db);
  }

  private failed(kind: 'index' | 'query', model: EmbeddingModel, error: unknown): void {
    if (this.failing[kind]) return;
    this.failing[kind] = true;
    // The client's errors are already cut and key-free (model-providers/embeddings.ts).
    const reason = error instanceof Error ? error.message : 'unknown error';
    this.options.logger.warn(
      { provider: model.provider, error: reason },
      kind === 'index'
        ? 'memory embeddings failed; chunks stay keyword-only and are retried on the next index pass'
        : 'memory query embedding failed; searches are keyword-only until it works',
    );
  }

  private recovered(kind: 'index' | 'query', model: EmbeddingModel): void {
    if (!this.failing[kind]) return;
    this.failing[kind] = false;
    this.options.logger.info({ provider: model.provider }, `memory ${kind} embeddings work again`);
  }
}
