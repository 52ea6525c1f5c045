// The keyword index of memory files and session transcripts: one table of documents on either
// database, searched through its dialect (search-dialects.ts) and ranked here, the same on both.
// Ranking: the share of the query's weight a document covers (rare terms weigh more, as in BM25's
// IDF), plus a small bonus for newer facts and for the engine's own rank. A document covering less
// than `threshold` of the query is not returned, so an entity never mentioned finds nothing.
import { PostgresAdapter } from 'kysely';
import type { Db } from '../database.ts';
import {
  postgresSearch,
  sqliteSearch,
  type Candidate,
  type SearchDialect,
  type SearchScope,
} from './search-dialects.ts';
import { documentStems, holdsWord, isEmpty, queryTerms, type QueryTerms } from './search-terms.ts';

export type { Corpus, SearchScope } from './search-dialects.ts';

export interface SearchDocument {
  corpus: 'memory' | 'session';
  agentId: string;
  source: string;
  startLine: number;
  endLine: number;
  refId?: number;
  at: number;
  text: string;
  /** The text's hash (memory chunks), the key of its cached vector. */
  hash?: string;
}

export interface SearchHit extends Candidate {
  score: number;
}

export interface SearchOptions {
  limit: number;
  /** Least share of the query's weight a hit must cover (0..1); default 0.5. */
  threshold?: number;
}

const CANDIDATES = 200;
const COUNT_TTL_MS = 10_000;
const DAY_MS = 86_400_000;
const HALF_LIFE_MS = 30 * DAY_MS;
export const DEFAULT_THRESHOLD = 0.5;

interface Weighted {
  kind: 'word' | 'substring' | 'pair';
  term: string;
  weight: number;
}

export class KeywordIndex {
  private readonly dialect: SearchDialect;
  /** Document counts (of a scope, or of a term in it), kept a little: they only weigh terms. */
  private readonly counts = new Map<string, { at: number; generation: number; count: number }>();
  /** Bumped by every write through this index, so a count it wrote past is never reused. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    kind: 'sqlite' | 'postgres' = 'sqlite',
  ) {
    this.dialect = kind === 'postgres' ? postgresSearch : sqliteSearch;
  }

  /** Which dialect a database speaks, from its kysely adapter. */
  static dialectOf(db: Db): 'sqlite' | 'postgres' {
    return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  }

  /** Told of documents a caller wrote itself (session-round-trips.ts): counts read before are stale. */
  wrote(): void {
    this.generation += 1;
  }

  /** Adds documents, inside the caller's transaction when given one. */
  async insert(documents: SearchDocument[], db: Db = this.db): Promise<void> {
    this.generation += 1;
    for (let start = 0; start < documents.length; start += 200) {
      await db
        .insertInto('search_documents')
        .values(
          documents.slice(start, start + 200).map((document) => ({
            corpus: document.corpus,
            agent_id: document.agentId,
            source: document.source,
            start_line: document.startLine,
            end_line: document.endLine,
            ref_id: document.refId ?? null,
            at: document.at,
            text: document.text,
            content_hash: document.hash ?? null,
          })),
        )
        .execute();
    }
  }

  /** Removes the documents of some sources of an agent (every source when none is given). */
  async remove(
    corpus: 'memory' | 'session',
    agentId: string,
    sources?: string[],
    db: Db = this.db,
  ): Promise<void> {
    this.generation += 1;
    let query = db
      .deleteFrom('search_documents')
      .where('corpus', '=', corpus)
      .where('agent_id', '=', agentId);
    if (sources !== undefined) {
      if (sources.length === 0) return;
      query = query.where('source', 'in', sources);
    }
    await query.execute();
  }

  async search(scope: SearchScope, query: string, options: SearchOptions): Promise<SearchHit[]> {
    const terms = queryTerms(query);
    if (isEmpty(terms) || options.limit <= 0) return [];
    const threshold = options.threshold ?? DEFAULT_THRESHOLD;
    const weights = await this.weights(scope, terms);
    const total = weights.reduce((sum, term) => sum + term.weight, 0);
    // A hit must cover `threshold` of the weight, so it holds at least one of the heaviest terms
    // whose weight leaves less than that to the rest: only those are looked up.
    const needed: Weighted[] = [];
    let rest = total;
    for (const term of [...weights].sort((a, b) => b.weight - a.weight)) {
      if (rest < threshold * total) break;
      needed.push(term);
      rest -= term.weight;
    }
    // Substrings (identifiers, CJK) are rare and tokenizers split identifiers differently
    // (PostgreSQL reads "A-7731" as "a" and "-7731"), so they are always looked up.
    const groups = weights.every((term) => term.kind === 'word')
      ? wordGroups(weights, threshold * total)
      : undefined;
    const lookup: QueryTerms = {
      words: needed.filter((term) => term.kind === 'word').map((term) => term.term),
      substrings: terms.substrings,
      pairs: terms.pairs,
      ...(groups ? { groups } : {}),
    };
    const candidates = await this.dialect.candidates(this.db, scope, lookup, CANDIDATES);
    const covered = candidates
      .map((candidate) => ({ candidate, coverage: coverage(candidate.text, weights) / total }))
      .filter((entry) => entry.coverage >= threshold);
    if (covered.length === 0) return [];
    const newest = Math.max(...covered.map((entry) => entry.candidate.at));
    const topRank = Math.max(...covered.map((entry) => entry.candidate.rank), 0);
    return covered
      .map(({ candidate, coverage: share }): SearchHit => {
        const recency = Math.pow(0.5, Math.max(0, newest - candidate.at) / HALF_LIFE_MS);
        const rank = topRank > 0 ? Math.max(0, candidate.rank) / topRank : 0;
        const score = share + 0.1 * recency + 0.05 * rank;
        return { ...candidate, score: Math.round(score * 10_000) / 10_000 };
      })
      .sort((a, b) => b.score - a.score || b.at - a.at || b.id - a.id)
      .slice(0, options.limit);
  }

  /**
   * The share of the query's weight (0..1) each text covers, as search() measures it: how much of
   * the query a hit found another way (by its vector) holds.
   */
  async coverage(scope: SearchScope, query: string, texts: string[]): Promise<number[]> {
    const terms = queryTerms(query);
    if (isEmpty(terms)) return texts.map(() => 0);
    const weights = await this.weights(scope, terms);
    const total = weights.reduce((sum, term) => sum + term.weight, 0);
    return texts.map((text) => (total > 0 ? coverage(text, weights) / total : 0));
  }

  /**
   * A count for weighting, kept up to COUNT_TTL_MS while this index wrote nothing: another
   * instance's writes show within that time, which only shifts weights a little.
   */
  private async counted(key: string, count: () => Promise<number>): Promise<number> {
    const now = Date.now();
    const known = this.counts.get(key);
    if (known && known.generation === this.generation && now - known.at < COUNT_TTL_MS) return known.count;
    const generation = this.generation;
    const value = await count();
    if (this.counts.size > 10_000) this.counts.clear();
    this.counts.set(key, { at: now, generation, count: value });
    return value;
  }

  /** The scope's document count. */
  private total(scope: SearchScope): Promise<number> {
    return this.counted(`${scopeKey(scope)}\u0000`, () => this.dialect.total(this.db, scope));
  }

  /** IDF weights of the query's terms (a term no document holds weighs the most). */
  private async weights(scope: SearchScope, terms: QueryTerms): Promise<Weighted[]> {
    const documents = Math.max(1, await this.total(scope));
    const idf = (frequency: number): number =>
      Math.log(1 + (documents - Math.min(frequency, documents) + 0.5) / (frequency + 0.5));
    const frequency = (kind: Weighted['kind'], term: string): Promise<number> =>
      this.counted(`${scopeKey(scope)}\u0000${kind}\u0000${term}`, () =>
        this.dialect.frequency(this.db, scope, { [kind]: term }),
      );
    const weighted: Weighted[] = [];
    for (const word of terms.words)
      weighted.push({ kind: 'word', term: word, weight: idf(await frequency('word', word)) });
    for (const substring of terms.substrings)
      weighted.push({
        kind: 'substring',
        term: substring,
        weight: idf(await frequency('substring', substring)),
      });
    for (const pair of terms.pairs)
      weighted.push({ kind: 'pair', term: pair, weight: idf(await frequency('pair', pair)) });
    return weighted;
  }
}

const MAX_GROUP_WORDS = 8;
const MAX_GROUPS = 12;

/**
 * The smallest sets of the query's words whose weight reaches `least`: a document passes the
 * threshold only if it holds every word of one of them, so looking up those sets (each an AND)
 * ranks only documents that can pass, not every document holding a common word. Undefined when
 * there are too many words or sets to say so cheaply (then any heavy word is looked up).
 */
function wordGroups(weights: Weighted[], least: number): string[][] | undefined {
  if (weights.length === 0 || weights.length > MAX_GROUP_WORDS) return undefined;
  const sum = (mask: number): number =>
    weights.reduce((total, term, index) => (mask & (1 << index) ? total + term.weight : total), 0);
  // A rounding margin, so a set that exactly reaches the threshold is kept as the filter keeps it.
  const reaches = (mask: number): boolean => sum(mask) >= least - 1e-9;
  const groups: string[][] = [];
  for (let mask = 1; mask < 1 << weights.length; mask += 1) {
    if (!reaches(mask)) continue;
    let minimal = true;
    for (let index = 0; index < weights.length && minimal; index += 1)
      if (mask & (1 << index) && reaches(mask & ~(1 << index))) minimal = false;
    if (!minimal) continue;
    groups.push(weights.filter((_, index) => mask & (1 << index)).map((term) => term.term));
    if (groups.length > MAX_GROUPS) return undefined;
  }
  return groups.length > 0 ? groups : undefined;
}

function scopeKey(scope: SearchScope): string {
  return JSON.stringify([scope.corpus, scope.agentId, scope.prefixes ?? null, scope.sources ?? null]);
}

/** The stems of documents seen lately, by their text: the same notes come back query after query. */
const stemCache = new Map<string, Set<string>>();
const STEM_CACHE_SIZE = 5000;

function cachedStems(text: string): Set<string> {
  const known = stemCache.get(text);
  if (known) return known;
  const stems = documentStems(text);
  if (stemCache.size >= STEM_CACHE_SIZE) stemCache.delete(stemCache.keys().next().value as string);
  stemCache.set(text, stems);
  return stems;
}

function coverage(text: string, weights: Weighted[]): number {
  const stems = cachedStems(text);
  const lower = text.toLowerCase();
  let sum = 0;
  for (const term of weights) {
    const held = term.kind === 'word' ? holdsWord(stems, term.term) : lower.includes(term.term);
    if (held) sum += term.weight;
  }
  return sum;
}
