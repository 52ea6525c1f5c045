// A model-free evaluation of memory retrieval on a seeded corpus (users, facts, updates, people
// never mentioned): recall@5 and @10 of the newest evidence, how often the newer fact ranks above
// the one it replaced, and abstention, against plain BM25 over fixed 8-line chunks at the same
// number of lines returned. Prints one JSON line. BENCH_USERS / BENCH_DAYS scale it.
// The embeddings variant runs the same questions, and paraphrases of them that share only the
// person's name with the notes, with the embeddings layer on over the fake /embeddings server of
// test/fakes (hashed bag-of-words with planted synonyms: it measures the fusion and abstention
// rules, not a real model's quality), against keyword search alone.
import { startFakeEmbeddings } from '../test/fakes/fake-embeddings.ts';
import { generateCorpus, type Fact, type Question } from './_memory-corpus.ts';
import { memoryIndexOver, type BenchIndex } from './_memory-index.ts';
import { documentStems, queryTerms } from '../src/storage/search/search-terms.ts';

const USERS = Number(process.env['BENCH_USERS'] ?? 60);
const DAYS = Number(process.env['BENCH_DAYS'] ?? 120);
const corpus = generateCorpus(20_260_127, USERS, DAYS, 40);

interface Chunk {
  path: string;
  start: number;
  end: number;
  stems: string[];
}

/** Plain BM25 (k1 1.2, b 0.75) over fixed 8-line chunks, same terms as ours. */
function baseline(): (query: string, k: number) => Chunk[] {
  const chunks: Chunk[] = [];
  for (const [path, lines] of corpus.files)
    for (let start = 0; start < lines.length; start += 8)
      chunks.push({
        path,
        start: start + 1,
        end: Math.min(lines.length, start + 8),
        stems: [...documentStems(lines.slice(start, start + 8).join('\n'))],
      });
  const average = chunks.reduce((sum, chunk) => sum + chunk.stems.length, 0) / chunks.length;
  const prefixFrequency = new Map<string, number>();
  const documentFrequency = (word: string): number => {
    let known = prefixFrequency.get(word);
    if (known === undefined) {
      known = chunks.filter((chunk) => chunk.stems.some((stem) => stem.startsWith(word))).length;
      prefixFrequency.set(word, known);
    }
    return known;
  };
  return (query, k) => {
    const words = queryTerms(query).words;
    return chunks
      .map((chunk) => {
        let score = 0;
        for (const word of words) {
          const tf = chunk.stems.filter((stem) => stem.startsWith(word)).length;
          if (tf === 0) continue;
          const df = documentFrequency(word);
          const idf = Math.log(1 + (chunks.length - df + 0.5) / (df + 0.5));
          score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * chunk.stems.length) / average));
        }
        return { chunk, score };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((entry) => entry.chunk);
  };
}

const holds = (hit: { path: string; start: number; end: number }, fact: Fact): boolean =>
  hit.path === fact.path && hit.start <= fact.line && fact.line <= hit.end;

const started = performance.now();
const index = await memoryIndexOver(corpus.files);
const bm25 = baseline();
const answerable = corpus.questions.filter((question) => question.evidence);
const unanswerable = corpus.questions.filter((question) => !question.evidence);
const ours = { at5: 0, at10: 0, lines5: 0, lines10: 0, newerFirst: 0, updates: 0, abstained: 0 };
const base = { at5: 0, at10: 0, sameLines5: 0, sameLines10: 0, abstained: 0 };
for (const question of corpus.questions) {
  const hits = (await index.memory.search('bench', question.text, 10)).map((hit) => ({
    path: hit.path,
    start: hit.startLine,
    end: hit.endLine,
  }));
  const lines = (list: typeof hits) => list.reduce((sum, hit) => sum + hit.end - hit.start + 1, 0);
  if (!question.evidence) {
    if (hits.length === 0) ours.abstained += 1;
    if (bm25(question.text, 1).length === 0) base.abstained += 1;
    continue;
  }
  const evidence = question.evidence;
  const rank = hits.findIndex((hit) => holds(hit, evidence));
  if (rank >= 0 && rank < 5) ours.at5 += 1;
  if (rank >= 0) ours.at10 += 1;
  ours.lines5 += lines(hits.slice(0, 5));
  ours.lines10 += lines(hits);
  if (question.older) {
    ours.updates += 1;
    const older = hits.findIndex((hit) => holds(hit, question.older as Fact));
    if (rank >= 0 && (older < 0 || rank < older)) ours.newerFirst += 1;
  }
  const chunks = bm25(question.text, 10);
  if (
    chunks
      .slice(0, 5)
      .some((chunk) => holds({ path: chunk.path, start: chunk.start, end: chunk.end }, evidence))
  )
    base.at5 += 1;
  if (chunks.some((chunk) => holds({ path: chunk.path, start: chunk.start, end: chunk.end }, evidence)))
    base.at10 += 1;
  // The same number of lines as ours returned: ceil(lines / 8) chunks.
  const same = (count: number) => chunks.slice(0, Math.max(1, Math.ceil(count / 8)));
  if (
    same(lines(hits.slice(0, 5))).some((chunk) =>
      holds({ path: chunk.path, start: chunk.start, end: chunk.end }, evidence),
    )
  )
    base.sameLines5 += 1;
  if (
    same(lines(hits)).some((chunk) =>
      holds({ path: chunk.path, start: chunk.start, end: chunk.end }, evidence),
    )
  )
    base.sameLines10 += 1;
}
const share = (value: number, of: number) => Math.round((value / Math.max(1, of)) * 1000) / 1000;

/** Paraphrases that share only the person's name with the notes (and the planted synonyms). */
const PARAPHRASE: Record<Fact['attribute'], (user: string) => string> = {
  city: (user) => `Which city is ${user} based in?`,
  drink: (user) => `What beverage does ${user} like best?`,
  employer: (user) => `Which company employs ${user}?`,
  pet: (user) => `Which animal does ${user} keep?`,
};
const paraphrased: Question[] = corpus.questions.map((question) => {
  if (question.evidence)
    return { ...question, text: PARAPHRASE[question.evidence.attribute](question.evidence.user) };
  const asked = /(?:does|is) (.+?) (?:live|work|have|based)|What is (.+?)'s/.exec(question.text);
  const who = asked?.[1] ?? asked?.[2] ?? 'Nobody Zebrowski';
  return { text: PARAPHRASE.city(who) };
});

/** recall@5/@10 of the newest evidence, newer above superseded, and abstention, of one index. */
async function evaluate(searched: BenchIndex, questions: Question[]) {
  const counts = { at5: 0, at10: 0, newerFirst: 0, updates: 0, abstained: 0, answerable: 0, never: 0 };
  for (const question of questions) {
    const hits = await searched.memory.search('bench', question.text, 10);
    if (!question.evidence) {
      counts.never += 1;
      if (hits.length === 0) counts.abstained += 1;
      continue;
    }
    counts.answerable += 1;
    const evidence = question.evidence;
    const found = (fact: Fact) =>
      hits.findIndex((hit) => holds({ path: hit.path, start: hit.startLine, end: hit.endLine }, fact));
    const rank = found(evidence);
    if (rank >= 0 && rank < 5) counts.at5 += 1;
    if (rank >= 0) counts.at10 += 1;
    if (question.older) {
      counts.updates += 1;
      const older = found(question.older);
      if (rank >= 0 && (older < 0 || rank < older)) counts.newerFirst += 1;
    }
  }
  return {
    recallAt5: share(counts.at5, counts.answerable),
    recallAt10: share(counts.at10, counts.answerable),
    newerAboveSuperseded: share(counts.newerFirst, counts.updates),
    abstention: share(counts.abstained, counts.never),
  };
}

const keywordParaphrased = await evaluate(index, paraphrased);
await index.close();
const fake = await startFakeEmbeddings();
const embeddingStarted = performance.now();
const embedded = await memoryIndexOver(corpus.files, { baseUrl: fake.baseUrl, model: 'fake-bag-of-words' });
const indexSeconds = Math.round((performance.now() - embeddingStarted) / 100) / 10;
const chunksEmbedded = fake.inputs.length;
const searchStarted = performance.now();
const withEmbeddings = {
  questions: await evaluate(embedded, corpus.questions),
  paraphrased: await evaluate(embedded, paraphrased),
};
const searchMs = (performance.now() - searchStarted) / (2 * corpus.questions.length);
await embedded.close();
await fake.close();
console.log(
  JSON.stringify({
    bench: 'memory-retrieval',
    seconds: Math.round((performance.now() - started) / 100) / 10,
    seed: 20_260_127,
    lines: corpus.lines,
    questions: answerable.length,
    neverStated: unanswerable.length,
    ours: {
      recallAt5: share(ours.at5, answerable.length),
      recallAt10: share(ours.at10, answerable.length),
      linesReturnedAt5: share(ours.lines5, answerable.length),
      linesReturnedAt10: share(ours.lines10, answerable.length),
      newerAboveSuperseded: share(ours.newerFirst, ours.updates),
      abstention: share(ours.abstained, unanswerable.length),
    },
    bm25FixedChunks8: {
      recallAtSameLines5: share(base.sameLines5, answerable.length),
      recallAtSameLines10: share(base.sameLines10, answerable.length),
      recallAt5Chunks: share(base.at5, answerable.length),
      recallAt10Chunks: share(base.at10, answerable.length),
      abstention: share(base.abstained, unanswerable.length),
    },
    keywordOnlyParaphrased: keywordParaphrased,
    embeddingsOn: {
      embedder: 'fake hashed bag-of-words with planted synonyms (test/fakes/fake-embeddings.ts)',
      chunksEmbedded,
      indexSeconds,
      searchMsMean: Math.round(searchMs * 100) / 100,
      ...withEmbeddings,
    },
  }),
);
