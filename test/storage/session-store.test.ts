import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChatMessage } from '../../src/model-providers/types.ts';
import { SessionStore } from '../../src/storage/session-store.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const info = { agentId: 'main', channel: 'api', scope: 'per_peer' };

function turn(n: number, size = 10): ChatMessage[] {
  return [
    { role: 'user', content: `question ${n} ${'x'.repeat(size)}` },
    { role: 'assistant', content: null, toolCalls: [{ id: `c${n}`, name: 'glob', arguments: '{}' }] },
    { role: 'tool', toolCallId: `c${n}`, content: 'result' },
    { role: 'assistant', content: `answer ${n}` },
  ];
}

for (const kind of DATABASE_KINDS)
  describe(`session store on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });
    const openDatabase = async () => {
      database = await createTestDatabase(kind, process.env);
      return database.open();
    };

    it('keeps user, assistant, tool calls and tool results in order', async () => {
      const db = await openDatabase();
      const store = new SessionStore(db);
      await store.append('k', info, turn(1));
      assert.deepEqual(await store.load('k'), turn(1));
      assert.deepEqual(await store.load('other'), []);
    });

    it('past the message cap, the model is given the newest whole turns and nothing is deleted', async () => {
      const db = await openDatabase();
      const store = new SessionStore(db, { maxMessages: 10, maxTokens: 1_000_000 });
      for (let n = 1; n <= 5; n++) await store.append('k', info, turn(n));
      assert.equal((await store.load('k')).length, 20, 'every message stays stored');
      const kept = await store.history('k');
      assert.ok(kept.length <= 10);
      assert.equal(kept[0]?.role, 'user', 'history starts at a turn boundary');
      assert.match(String(kept[0]?.content), /^question 4 /);
      assert.equal(kept.at(-1)?.content, 'answer 5');
    });

    it('past the token budget, the model is given only the newest turn, and the rest stays stored', async () => {
      const db = await openDatabase();
      const store = new SessionStore(db, { maxMessages: 1000, maxTokens: 300 });
      for (let n = 1; n <= 3; n++) await store.append('k', info, turn(n, 600));
      assert.equal((await store.load('k')).length, 12);
      const kept = await store.history('k');
      assert.deepEqual(kept, turn(3, 600), 'only the newest turn fits; it is kept even over budget');
    });

    it('clear removes one session and reports whether it existed; clearAgent removes all of an agent', async () => {
      const db = await openDatabase();
      const store = new SessionStore(db);
      await store.append('a', info, turn(1));
      await store.append('b', info, turn(1));
      await store.append('c', { ...info, agentId: 'other' }, turn(1));
      assert.equal(await store.clear('a'), true);
      assert.equal(await store.clear('a'), false);
      await store.clearAgent('main');
      assert.deepEqual(await store.load('b'), []);
      assert.equal((await store.load('c')).length, 4);
    });

    it("an append's windowBefore is the window read just before it (PostgreSQL: in the append's statement)", async () => {
      const db = await openDatabase();
      const store = new SessionStore(db);
      const ids = await store.append('k', info, turn(1));
      await store.append('k', info, turn(2));
      assert.ok(
        await store.addSummary('k', {
          firstId: ids[0] ?? 0,
          lastId: ids[3] ?? 0,
          content: 'turn 1',
          previousLastId: 0,
        }),
      );
      const expected = await store.window('k');
      assert.equal(expected.summary?.content, 'turn 1');
      assert.equal(expected.messages.length, 4);
      const seen: unknown[] = [];
      const opening = await store.append('k', info, [{ role: 'user', content: 'question 3' }], {
        windowBefore: (window) => seen.push(window),
      });
      assert.equal(opening.length, 1);
      if (kind === 'postgres') assert.deepEqual(seen, [expected], 'the window before, not the opening');
      else assert.deepEqual(seen, [], 'the embedded database reads the window on its own');
      // A new session: an empty window.
      const fresh: unknown[] = [];
      await store.append('new', info, turn(1), { windowBefore: (window) => fresh.push(window) });
      assert.deepEqual(fresh, kind === 'postgres' ? [{ summary: undefined, messages: [] }] : []);
    });
  });
