// The two dialects of keyword search, behind one interface: SQLite's FTS5 (BM25 over words, a
// trigram table for substrings) and PostgreSQL's full text (`simple` tsvector, ts_rank) with
// pg_trgm serving ILIKE. Everything else (writes, ranking, scoping) is shared, in keyword-index.ts.
import { sql, type RawBuilder } from 'kysely';
import type { Db, SearchDocumentsTable } from '../database.ts';
import type { QueryTerms } from './search-terms.ts';

export type Corpus = 'memory' | 'session';

export interface SearchScope {
  corpus: Corpus;
  agentId: string;
  /** Only sources (session keys) starting with one of these; undefined: every source of the agent. */
  prefixes?: string[];
  /** Only these sources exactly. */
  sources?: string[];
}

export interface Candidate {
  id: number;
  source: string;
  startLine: number;
  endLine: number;
  refId: number | null;
  at: number;
  text: string;
  /** The engine's relevance, higher is better (BM25 or ts_rank; 0 for a substring match). */
  rank: number;
}

export interface SearchDialect {
  candidates(db: Db, scope: SearchScope, terms: QueryTerms, limit: number): Promise<Candidate[]>;
  /** How many documents of the scope hold each term (capped), for weighting rare terms above common ones. */
  frequency(
    db: Db,
    scope: SearchScope,
    term: { word?: string; substring?: string; pair?: string },
  ): Promise<number>;
  /** How many documents the scope holds. */
  total(db: Db, scope: SearchScope): Promise<number>;
}

type Row = Pick<SearchDocumentsTable, 'source' | 'start_line' | 'end_line' | 'ref_id' | 'at' | 'text'> & {
  id: number;
  rank: number;
};

const FREQUENCY_CAP = 5000;

function toCandidate(row: Row): Candidate {
  return {
    id: Number(row.id),
    source: row.source,
    startLine: Number(row.start_line),
    endLine: Number(row.end_line),
    refId: row.ref_id === null ? null : Number(row.ref_id),
    at: Number(row.at),
    text: row.text,
    rank: Number(row.rank),
  };
}

function scopeFilter(scope: SearchScope): RawBuilder<unknown> {
  let base = sql`d.corpus = ${scope.corpus} and d.agent_id = ${scope.agentId}`;
  if (scope.sources !== undefined)
    base =
      scope.sources.length === 0
        ? sql`${base} and 1 = 0`
        : sql`${base} and d.source in (${sql.join(scope.sources.map((source) => sql`${source}`))})`;
  if (scope.prefixes === undefined) return base;
  if (scope.prefixes.length === 0) return sql`${base} and 1 = 0`;
  const any = sql.join(
    scope.prefixes.map((prefix) => sql`substr(d.source, 1, ${prefix.length}) = ${prefix}`),
    sql` or `,
  );
  return sql`${base} and (${any})`;
}

const COLUMNS = sql`d.id, d.source, d.start_line, d.end_line, d.ref_id, d.at, d.text`;

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Keeps each document once, with its best rank. */
function merge(lists: Candidate[][]): Candidate[] {
  const byId = new Map<number, Candidate>();
  for (const list of lists)
    for (const candidate of list) {
      const known = byId.get(candidate.id);
      if (!known || known.rank < candidate.rank) byId.set(candidate.id, candidate);
    }
  return [...byId.values()];
}

async function total(db: Db, scope: SearchScope): Promise<number> {
  const { rows } = await sql<{ count: number }>`select count(*) as count from search_documents
    where corpus = ${scope.corpus} and agent_id = ${scope.agentId}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

/** The best `limit` documents of the scope matching `match` in one of the FTS5 indexes, by bm25. */
async function ranked(
  db: Db,
  index: 'search_words' | 'search_trigrams',
  match: string,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<Candidate[]> {
  const table = sql.raw(index);
  const { rows } = await sql<Row>`
    select ${COLUMNS}, -bm25(${table}) as rank
    from ${table} cross join search_documents d on d.id = ${table}.rowid
    where ${table} match ${match} and ${filter}
    order by bm25(${table}) limit ${limit}`.execute(db);
  return rows.map(toCandidate);
}

export const sqliteSearch: SearchDialect = {
  // The vocabulary counts words over the whole index, so the total is the whole index too.
  async total(db) {
    const { rows } = await sql<{ count: number }>`select count(*) as count from search_documents`.execute(db);
    return Number(rows[0]?.count ?? 0);
  },
  async candidates(db, scope, terms, limit) {
    const filter = scopeFilter(scope);
    const lists: Candidate[][] = [];
    if (terms.words.length > 0) {
      const match = terms.groups
        ? terms.groups
            .map((group) => `(${group.map((word) => `${quote(word)}*`).join(' AND ')})`)
            .join(' OR ')
        : terms.words.map((word) => `${quote(word)}*`).join(' OR ');
      lists.push(await ranked(db, 'search_words', match, filter, limit));
    }
    if (terms.substrings.length > 0) {
      const match = terms.substrings.map(quote).join(' OR ');
      lists.push(await ranked(db, 'search_trigrams', match, filter, limit));
    }
    for (const pair of terms.pairs) {
      const { rows } = await sql<Row>`
        select ${COLUMNS}, 0 as rank from search_documents d
        where ${filter} and d.text like ${likePattern(pair)} escape '\\' limit ${limit}`.execute(db);
      lists.push(rows.map(toCandidate));
    }
    return merge(lists);
  },
  async frequency(db, scope, term) {
    // Words: the documents of the whole index the word index matches (as the total counts the
    // whole index), up to a cap. Not the vocabulary: it holds the tokenizer's (porter) stems, so a
    // range over "favourite" misses "favourit" and a common word would weigh as never seen.
    // Substrings: counted in the scope, up to a cap.
    if (term.word !== undefined) {
      const { rows } = await sql<{ count: number }>`select count(*) as count from (select 1 from search_words
        where search_words match ${`${quote(term.word)}*`} limit ${FREQUENCY_CAP})`.execute(db);
      return Number(rows[0]?.count ?? 0);
    }
    const filter = scopeFilter(scope);
    const query = term.substring
      ? sql<{ count: number }>`select count(*) as count from (select 1 from search_trigrams
          cross join search_documents d on d.id = search_trigrams.rowid
          where search_trigrams match ${quote(term.substring)} and ${filter} limit ${FREQUENCY_CAP})`
      : sql<{ count: number }>`select count(*) as count from (select 1 from search_documents d
          where ${filter} and d.text like ${likePattern(term.pair ?? '')} escape '\\' limit ${FREQUENCY_CAP})`;
    const { rows } = await query.execute(db);
    return Number(rows[0]?.count ?? 0);
  },
};

/** A word stem as a prefix query of to_tsquery: stems hold only letters and digits. */
function prefixQuery(words: string[]): string {
  return words.map((word) => `${word.replace(/[^\p{L}\p{N}]/gu, '')}:*`).join(' | ');
}

/** Word groups as to_tsquery: every word of one of the groups. */
function groupsQuery(groups: string[][]): string {
  return groups
    .map((group) => `(${group.map((word) => `${word.replace(/[^\p{L}\p{N}]/gu, '')}:*`).join(' & ')})`)
    .join(' | ');
}

export const postgresSearch: SearchDialect = {
  total,
  async candidates(db, scope, terms, limit) {
    const filter = scopeFilter(scope);
    const lists: Candidate[][] = [];
    if (terms.words.length > 0) {
      const query = terms.groups ? groupsQuery(terms.groups) : prefixQuery(terms.words);
      const { rows } = await sql<Row>`
        select ${COLUMNS}, ts_rank(d.words, to_tsquery('simple', ${query})) as rank
        from search_documents d
        where d.words @@ to_tsquery('simple', ${query}) and ${filter}
        order by rank desc, d.id limit ${limit}`.execute(db);
      lists.push(rows.map(toCandidate));
    }
    for (const text of [...terms.substrings, ...terms.pairs]) {
      const { rows } = await sql<Row>`
        select ${COLUMNS}, 0 as rank from search_documents d
        where ${filter} and d.text ilike ${likePattern(text)} limit ${limit}`.execute(db);
      lists.push(rows.map(toCandidate));
    }
    return merge(lists);
  },
  async frequency(db, scope, term) {
    const filter = scopeFilter(scope);
    const query =
      term.word !== undefined
        ? sql<{ count: number }>`select count(*) as count from (select 1 from search_documents d
            where d.words @@ to_tsquery('simple', ${prefixQuery([term.word])}) and ${filter} limit ${FREQUENCY_CAP}) as hits`
        : sql<{ count: number }>`select count(*) as count from (select 1 from search_documents d
            where d.text ilike ${likePattern(term.substring ?? term.pair ?? '')} and ${filter} limit ${FREQUENCY_CAP}) as hits`;
    const { rows } = await query.execute(db);
    return Number(rows[0]?.count ?? 0);
  },
};
