// One contract for keyword search on both databases: SQLite FTS5 (words + trigrams) and PostgreSQL
// full text (tsvector + pg_trgm) rank, scope and forget alike.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { KeywordIndex, type SearchDocument } from '../../src/storage/search/keyword-index.ts';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../fakes/test-database.ts';

const DAY = 86_400_000;

function note(source: string, line: number, text: string, at: number, agentId = 'a'): SearchDocument {
  return { corpus: 'memory', agentId, source, startLine: line, endLine: line, at, text };
}

for (const kind of DATABASE_KINDS) {
  describe(`keyword index on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });
    const open = async (): Promise<KeywordIndex> => {
      database = await createTestDatabase(kind, process.env);
      const db = await database.open();
      const index = new KeywordIndex(db, KeywordIndex.dialectOf(db));
      assert.equal(KeywordIndex.dialectOf(db), kind === 'postgres' ? 'postgres' : 'sqlite');
      await index.insert([
        note('memory/2026-01-01.md', 1, '- Alice lives in Paris', 1 * DAY),
        note('memory/2026-03-01.md', 1, '- Alice lives in Berlin now', 60 * DAY),
        note('memory/2026-03-01.md', 2, '- Bob prefers green tea', 60 * DAY),
        note('memory/2026-03-02.md', 1, '- 客户的订单号是 A-7731', 61 * DAY),
        note('memory/2026-03-02.md', 2, '- 東京の会議は金曜日です', 61 * DAY),
        note('memory/2026-03-03.md', 1, '- Carol lives in Rome', 62 * DAY, 'other-agent'),
        ...Array.from({ length: 40 }, (_, line) =>
          note('memory/filler.md', line + 1, `- weather note ${line} lives and lived`, 0),
        ),
      ]);
      return index;
    };

    it('ranks the newer of two matching facts first', async () => {
      const index = await open();
      const hits = await index.search({ corpus: 'memory', agentId: 'a' }, 'where does Alice live', {
        limit: 5,
      });
      assert.deepEqual(
        hits.slice(0, 2).map((hit) => hit.text),
        ['- Alice lives in Berlin now', '- Alice lives in Paris'],
      );
      assert.ok((hits[0]?.score ?? 0) > (hits[1]?.score ?? 0));
    });

    it('finds Chinese and Japanese by substring, and identifiers whole', async () => {
      const index = await open();
      const scope = { corpus: 'memory' as const, agentId: 'a' };
      assert.equal((await index.search(scope, '订单号', { limit: 3 }))[0]?.text, '- 客户的订单号是 A-7731');
      assert.equal((await index.search(scope, '会議', { limit: 3 }))[0]?.text, '- 東京の会議は金曜日です');
      assert.equal((await index.search(scope, 'A-7731', { limit: 3 }))[0]?.text, '- 客户的订单号是 A-7731');
    });

    it('abstains for an entity never mentioned, and keeps agents apart', async () => {
      const index = await open();
      assert.deepEqual(
        await index.search({ corpus: 'memory', agentId: 'a' }, 'where does Zoltan live', { limit: 5 }),
        [],
      );
      assert.deepEqual(
        await index.search({ corpus: 'memory', agentId: 'a' }, 'Carol Rome', { limit: 5 }),
        [],
      );
      assert.equal(
        (await index.search({ corpus: 'memory', agentId: 'other-agent' }, 'Carol', { limit: 5 })).length,
        1,
      );
      assert.deepEqual(await index.search({ corpus: 'memory', agentId: 'a' }, '  ?? ', { limit: 5 }), []);
    });

    it('limits sessions to prefixes or exact sources, and forgets removed sources', async () => {
      const index = await open();
      const session = (source: string, text: string): SearchDocument => ({
        corpus: 'session',
        agentId: 'a',
        source,
        startLine: 1,
        endLine: 1,
        refId: 1,
        at: 0,
        text,
      });
      await index.insert([
        session('k:acct1:s', 'parcel 100 lost'),
        session('k:acct2:s', 'parcel 200 lost'),
        session('k:acct1', 'parcel 300 lost'),
      ]);
      const found = async (scope: { prefixes?: string[]; sources?: string[] }) =>
        (await index.search({ corpus: 'session', agentId: 'a', ...scope }, 'parcel lost', { limit: 10 }))
          .map((hit) => hit.source)
          .sort();
      assert.deepEqual(await found({ prefixes: ['k:acct1:'] }), ['k:acct1:s']);
      assert.deepEqual(await found({ sources: ['k:acct1'] }), ['k:acct1']);
      assert.deepEqual(await found({}), ['k:acct1', 'k:acct1:s', 'k:acct2:s']);
      await index.remove('memory', 'a', ['memory/2026-03-01.md']);
      const hits = await index.search({ corpus: 'memory', agentId: 'a' }, 'Alice', { limit: 5 });
      assert.deepEqual(
        hits.map((hit) => hit.text),
        ['- Alice lives in Paris'],
      );
    });
  });
}
