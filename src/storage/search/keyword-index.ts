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
  private readonly totals = new Map<string, { at: number; count: number }>();

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

  /** Adds documents, inside the caller's transaction when given one. */
  async insert(documents: SearchDocument[], db: Db = this.db): Promise<void> {
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
    const lookup: QueryTerms = {
      words: needed.filter((term) => term.kind === 'word').map((term) => term.term),
      substrings: terms.substrings,
      pairs: terms.pairs,
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

  /** The scope's document count, kept for a second: it only weighs terms, and counting costs a scan. */
  private async total(scope: SearchScope): Promise<number> {
    const key = `${scope.corpus}\u0000${scope.agentId}`;
    const now = Date.now();
    const known = this.totals.get(key);
    if (known && now - known.at < 1000) return known.count;
    const count = await this.dialect.total(this.db, scope);
    if (this.totals.size > 1000) this.totals.clear();
    this.totals.set(key, { at: now, count });
    return count;
  }

  /** IDF weights of the query's terms (a term no document holds weighs the most). */
  private async weights(scope: SearchScope, terms: QueryTerms): Promise<Weighted[]> {
    const documents = Math.max(1, await this.total(scope));
    const idf = (frequency: number): number =>
      Math.log(1 + (documents - Math.min(frequency, documents) + 0.5) / (frequency + 0.5));
    const weighted: Weighted[] = [];
    for (const word of terms.words)
      weighted.push({
        kind: 'word',
        term: word,
        weight: idf(await this.dialect.frequency(this.db, scope, { word })),
      });
    for (const substring of terms.substrings)
      weighted.push({
        kind: 'substring',
        term: substring,
        weight: idf(await this.dialect.frequency(this.db, scope, { substring })),
      });
    for (const pair of terms.pairs)
      weighted.push({
        kind: 'pair',
        term: pair,
        weight: idf(await this.dialect.frequency(this.db, scope, { pair })),
      });
    return weighted;
  }
}

function coverage(text: string, weights: Weighted[]): number {
  const stems = documentStems(text);
  const lower = text.toLowerCase();
  let sum = 0;
  for (const term of weights) {
    const held = term.kind === 'word' ? holdsWord(stems, term.term) : lower.includes(term.term);
    if (held) sum += term.weight;
  }
  return sum;
}
