// Keyword and vector hits in one ranking: Reciprocal Rank Fusion (k = 60) of the two lists, and
// the rule that keeps abstention: a chunk found only by its vector must be close to the query, hold
// one of its words, and hold every name and number the query holds, so a person never mentioned
// still finds nothing however similar the sentences around them are.

export const RRF_K = 60;
const DAY_MS = 86_400_000;
const HALF_LIFE_MS = 30 * DAY_MS;
/** How much newer facts rise in the vector list (cosines of a fact and its update are close). */
const RECENCY_WEIGHT = 0.05;

export interface Fusable {
  id: number;
  at: number;
}

/**
 * Names and numbers of a query, lowercased: capitalised words past the first (a sentence's first
 * word is capitalised anyway) and words with a digit; possessive "'s" dropped.
 */
export function entityTerms(query: string): string[] {
  const found = new Set<string>();
  for (const sentence of query.split(/[.!?\n]+/u)) {
    const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}_\-./:@#']*/gu) ?? [];
    words.forEach((raw, index) => {
      const word = raw.replace(/'s$/u, '').replace(/['.\-/:]+$/u, '');
      const name = index > 0 && word.length > 1 && /^\p{Lu}/u.test(word);
      if (name || /\p{N}/u.test(word)) found.add(word.toLowerCase());
    });
  }
  return [...found];
}

/** Whether a chunk found only by its vector may be returned. */
export function admitted(
  hit: { text: string; similarity: number },
  coverage: number,
  entities: string[],
  minSimilarity: number,
): boolean {
  if (hit.similarity < minSimilarity || coverage <= 0) return false;
  const text = hit.text.toLowerCase();
  return entities.every((entity) => text.includes(entity));
}

/** The vector hits ordered by similarity, newer facts a little higher (as keyword ranking does). */
export function byVector<T extends Fusable & { similarity: number }>(hits: T[]): T[] {
  if (hits.length === 0) return [];
  const newest = Math.max(...hits.map((hit) => hit.at));
  const score = (hit: T): number =>
    hit.similarity + RECENCY_WEIGHT * Math.pow(0.5, Math.max(0, newest - hit.at) / HALF_LIFE_MS);
  return [...hits].sort((a, b) => score(b) - score(a) || b.at - a.at || b.id - a.id);
}

/**
 * Reciprocal Rank Fusion of ranked lists (best first): each item scores the sum of 1/(k + rank)
 * over the lists holding it, scaled so that first in every list is 1.
 */
export function fuse<T extends Fusable>(lists: T[][], k = RRF_K): Array<{ item: T; score: number }> {
  const fused = new Map<number, { item: T; sum: number }>();
  for (const list of lists)
    list.forEach((item, index) => {
      const known = fused.get(item.id);
      const part = 1 / (k + index + 1);
      if (known) known.sum += part;
      else fused.set(item.id, { item, sum: part });
    });
  const best = lists.length / (k + 1);
  return [...fused.values()]
    .map(({ item, sum }) => ({ item, score: Math.round((sum / best) * 10_000) / 10_000 }))
    .sort((a, b) => b.score - a.score || b.item.at - a.item.at || b.item.id - a.item.id);
}
