// The terms of a keyword query, the same for both databases: words (lowercased, crudely stemmed, so
// "lives" finds "live"), identifiers kept whole for substring search, and the three-character
// windows of Chinese, Japanese and Korean runs (trigrams), which have no spaces between words.

export interface QueryTerms {
  /** Word stems, matched as prefixes by the word index. */
  words: string[];
  /** Substrings matched by the trigram index (3+ characters): CJK windows and identifiers. */
  substrings: string[];
  /** CJK pairs (too short for trigrams), matched by a scan of the candidates' text. */
  pairs: string[];
  /**
   * For a lookup only: the word sets a document must hold all of one of (when given, instead of
   * any of `words`), so only documents that can pass the threshold are ranked.
   */
  groups?: string[][];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
/** Identifiers: order numbers, ids, versions: a run of letters, digits and - _ . / : @ with a digit. */
const IDENTIFIER = /[\p{L}\p{N}][\p{L}\p{N}_\-./:@#]*[\p{L}\p{N}]/gu;

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does doing for from had has have he her hers him his how i if in into ' +
    'is it its me my no not of on or our she so than that the their them then there these they this those to too was we were ' +
    'what when where which while who whom why will with would you your yours about after again all am any because before ' +
    'being below between both during each few further here just more most now only other out over own same should some such ' +
    'under until up very tell know said say says'
  ).split(' '),
);

/** A crude stem: enough to meet plurals and tenses half-way, applied to queries and documents alike. */
export function stem(word: string): string {
  let result = word.toLowerCase();
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (result.length - suffix.length >= 3 && result.endsWith(suffix)) {
      result = result.slice(0, -suffix.length);
      break;
    }
  }
  return result;
}

export function queryTerms(query: string): QueryTerms {
  const words = new Set<string>();
  const substrings = new Set<string>();
  const pairs = new Set<string>();
  const latin = query.replace(CJK_RUN, ' ');
  for (const match of latin.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    words.add(stem(word));
  }
  for (const match of latin.matchAll(IDENTIFIER)) {
    const identifier = match[0];
    if (identifier.length >= 3 && /\p{N}/u.test(identifier) && /[^\p{N}]/u.test(identifier))
      substrings.add(identifier.toLowerCase());
  }
  for (const match of query.matchAll(CJK_RUN)) {
    const run = [...match[0]];
    if (run.length === 2) pairs.add(run.join(''));
    for (let index = 0; index + 3 <= run.length; index += 1)
      substrings.add(run.slice(index, index + 3).join(''));
  }
  return {
    words: [...words].slice(0, 16),
    substrings: [...substrings].slice(0, 16),
    pairs: [...pairs].slice(0, 8),
  };
}

/** Whether a query has anything to search for. */
export function isEmpty(terms: QueryTerms): boolean {
  return terms.words.length + terms.substrings.length + terms.pairs.length === 0;
}

/** The stems of a document's words, for checking which query words it holds. */
export function documentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const match of text.replace(CJK_RUN, ' ').matchAll(WORD)) stems.add(stem(match[0]));
  return stems;
}

/** Whether a document holds a query word (a prefix of one of its stems, as the indexes match). */
export function holdsWord(stems: Set<string>, word: string): boolean {
  if (stems.has(word)) return true;
  for (const candidate of stems) if (candidate.startsWith(word)) return true;
  return false;
}

export function hasCjk(text: string): boolean {
  return CJK.test(text);
}
