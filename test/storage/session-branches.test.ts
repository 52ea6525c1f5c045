// Branches in session storage: an edit or a regenerate starts a sibling branch, the model's history
// and compaction summaries follow the active branch only, and nothing is deleted.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChatMessage } from '../../src/model-providers/types.ts';
import { childrenOf, newestUnder, pathTo } from '../../src/storage/session-branches.ts';
import { SessionStore } from '../../src/storage/session-store.ts';
import { SUMMARY_HEADING } from '../../src/storage/session-history.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const info = { agentId: 'main', channel: 'api', scope: 'per_peer' };
const user = (content: string): ChatMessage => ({ role: 'user', content });
const answer = (content: string): ChatMessage => ({ role: 'assistant', content });
const texts = (messages: ChatMessage[]) => messages.map((message) => message.content);

describe('branch tree helpers', () => {
  it('walks a path, lists children oldest first and finds where a branch was left', () => {
    const nodes = [
      { id: 1, parentId: 0 },
      { id: 2, parentId: 1 },
      { id: 3, parentId: 2 },
      { id: 4, parentId: 1 },
      { id: 5, parentId: 4 },
      { id: 6, parentId: 2 },
    ];
    assert.deepEqual(pathTo(5, new Map(nodes.map((node) => [node.id, node.parentId]))), [1, 4, 5]);
    assert.deepEqual(pathTo(0, new Map()), []);
    const children = childrenOf(nodes);
    assert.deepEqual(children.get(1), [2, 4]);
    assert.deepEqual(children.get(2), [3, 6]);
    assert.equal(newestUnder(2, children), 6);
    assert.equal(newestUnder(4, children), 5);
    assert.equal(newestUnder(5, children), 5);
  });
});

for (const kind of DATABASE_KINDS)
  describe(`session branches on ${kind}`, () => {
    let database: TestDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });
    const openStore = async () => {
      database = await createTestDatabase(kind, process.env);
      return new SessionStore(await database.open());
    };

    it('an edit starts a sibling branch; history and entries follow the active one, all stays stored', async () => {
      const store = await openStore();
      const [q1, a1] = await store.append('k', info, [user('q1'), answer('a1')]);
      const [q2] = await store.append('k', info, [user('q2'), answer('a2')]);
      assert.equal(await store.tree('k'), undefined, 'a session that never branched has no tree');
      // Edit q2: the new message follows q2's parent.
      const parent = (await store.message('k', q2 as number))?.parentId;
      assert.equal(parent, a1);
      await store.checkout('k', parent as number);
      assert.deepEqual(texts(await store.history('k')), ['q1', 'a1']);
      const [edited] = await store.append('k', info, [user('q2 edited')]);
      await store.append('k', info, [answer('a2 again')]);
      assert.deepEqual(texts(await store.history('k')), ['q1', 'a1', 'q2 edited', 'a2 again']);
      assert.deepEqual(
        (await store.entries('k')).map((entry) => entry.message.content),
        ['q1', 'a1', 'q2 edited', 'a2 again'],
      );
      assert.equal((await store.load('k')).length, 6, 'every version stays stored');
      const tree = await store.tree('k');
      assert.deepEqual(childrenOf(tree?.nodes ?? []).get(a1 as number), [q2, edited]);
      assert.equal((await store.message('k', q1 as number))?.parentId, 0);
      // Back to the first version: the newest message under q2 is its answer.
      await store.checkout('k', newestUnder(q2 as number, childrenOf(tree?.nodes ?? [])));
      assert.deepEqual(texts(await store.history('k')), ['q1', 'a1', 'q2', 'a2']);
      // A new turn continues the active branch.
      await store.append('k', info, [user('q3'), answer('a3')]);
      assert.deepEqual(texts(await store.history('k')), ['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
      await assert.rejects(store.checkout('k', 99_999), /not in this conversation/);
    });

    it('window reads the newest summary and the messages after it, as latestSummary and entries do, on either kind of session', async () => {
      database = await createTestDatabase(kind, process.env);
      const db = await database.open();
      const store = new SessionStore(db);
      const window = async () => {
        const read = await store.window('k');
        const summary = await store.latestSummary('k');
        assert.deepEqual(read, { summary, messages: await store.entries('k', summary?.lastId ?? 0) });
        return { summary: read.summary?.content, texts: read.messages.map((entry) => entry.message.content) };
      };
      assert.deepEqual(await store.window('none'), { summary: undefined, messages: [] });
      const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
      const ids = (await store.append('k', info, [user('q1'), answer('a1')])).concat(
        await store.append('k', info, [user('q2'), answer('a2')], { usage, status: 'stopped' }),
      );
      assert.deepEqual(await window(), { summary: undefined, texts: ['q1', 'a1', 'q2', 'a2'] });
      assert.deepEqual((await store.window('k')).messages.at(-1)?.usage, usage);
      const indexed = async () =>
        (
          await db
            .selectFrom('search_documents')
            .select(['ref_id', 'text'])
            .where('source', '=', 'k')
            .orderBy('ref_id')
            .execute()
        ).map((row) => [Number(row.ref_id), row.text]);
      assert.deepEqual(await indexed(), [
        [ids[0], 'q1'],
        [ids[1], 'a1'],
        [ids[2], 'q2'],
        [ids[3], 'a2'],
      ]);
      const fold = (first: number, last: number, content: string, previous: number) =>
        store.addSummary('k', {
          firstId: ids[first] as number,
          lastId: ids[last] as number,
          content,
          previousLastId: previous,
        });
      assert.equal(await fold(0, 1, 'S1', 0), true);
      assert.deepEqual(await window(), { summary: 'S1', texts: ['q2', 'a2'] });
      assert.equal(await fold(2, 2, 'S2', ids[1] as number), true);
      assert.deepEqual(await window(), { summary: 'S2', texts: ['a2'] });
      // Branched: an edit of q2 follows a1; S2 folded q2, which is off the active branch now.
      await store.checkout('k', ids[1] as number);
      await store.append('k', info, [user('q2 edited')]);
      assert.deepEqual(await window(), { summary: 'S1', texts: ['q2 edited'] });
      assert.deepEqual((await indexed()).at(-1)?.[1], 'q2 edited');
    });

    it('a summary applies only to the branch it folded; a compaction on another branch is not refused', async () => {
      const store = await openStore();
      const ids = await store.append('k', info, [user('q1'), answer('a1'), user('q2'), answer('a2')]);
      const [, a1, , a2] = ids as [number, number, number, number];
      assert.equal(
        await store.addSummary('k', {
          firstId: ids[0] as number,
          lastId: a1,
          content: 'S1',
          previousLastId: 0,
        }),
        true,
      );
      assert.equal((await store.history('k'))[0]?.content, `${SUMMARY_HEADING}\nS1`);
      // Start over from the first message: S1 folded messages that are not on this branch.
      await store.checkout('k', 0);
      await store.append('k', info, [user('other start'), answer('other answer')]);
      assert.equal(await store.latestSummary('k'), undefined);
      assert.deepEqual(texts(await store.history('k')), ['other start', 'other answer']);
      assert.deepEqual(await store.summaries('k'), []);
      // This branch compacts on its own (its previous summary is none).
      const other = await store.entries('k');
      assert.equal(
        await store.addSummary('k', {
          firstId: other[0]?.id as number,
          lastId: other[0]?.id as number,
          content: 'S2',
          previousLastId: 0,
        }),
        true,
      );
      assert.equal((await store.latestSummary('k'))?.content, 'S2');
      // Back on the first branch, S1 is its summary again.
      await store.checkout('k', a2);
      assert.equal((await store.latestSummary('k'))?.content, 'S1');
      assert.deepEqual(texts(await store.history('k')).slice(1), ['q2', 'a2']);
    });

    it('pins, archives, finds by title and moves a session with its messages and search entries', async () => {
      const store = await openStore();
      await store.append('agent:main:channel:api:scope:per_peer:a', info, [user('alpha')]);
      await store.append('agent:main:channel:api:scope:per_peer:b', info, [user('beta')]);
      await store.setTitle('agent:main:channel:api:scope:per_peer:a', 'Quarterly 报告 Plan');
      assert.equal(await store.setMarks('agent:main:channel:api:scope:per_peer:a', { pinned: true }), true);
      const list = await store.list({ agentId: 'main', offset: 0, limit: 10 });
      assert.deepEqual(
        list.sessions.map((session) => [session.key.slice(-1), session.pinned]),
        [
          ['a', true],
          ['b', false],
        ],
      );
      await store.setMarks('agent:main:channel:api:scope:per_peer:b', { archived: true });
      const shown = await store.list({ agentId: 'main', offset: 0, limit: 10 });
      assert.deepEqual(
        shown.sessions.map((session) => session.key.slice(-1)),
        ['a'],
      );
      const archived = await store.list({ agentId: 'main', archived: 'only', offset: 0, limit: 10 });
      assert.deepEqual(
        archived.sessions.map((session) => session.key.slice(-1)),
        ['b'],
      );
      assert.equal(
        (await store.list({ agentId: 'main', archived: 'include', offset: 0, limit: 10 })).total,
        2,
      );
      assert.deepEqual(await store.findByTitle({ agentId: 'main', text: 'QUARTERLY', limit: 5 }), [
        'agent:main:channel:api:scope:per_peer:a',
      ]);
      assert.equal((await store.findByTitle({ agentId: 'main', text: '报告', limit: 5 })).length, 1);
      assert.deepEqual(await store.findByTitle({ agentId: 'main', text: '%', limit: 5 }), []);
      await store.move(
        'agent:main:channel:api:scope:per_peer:a',
        'agent:writer:channel:api:scope:per_peer:a',
        'writer',
      );
      assert.deepEqual(await store.load('agent:main:channel:api:scope:per_peer:a'), []);
      assert.deepEqual(texts(await store.load('agent:writer:channel:api:scope:per_peer:a')), ['alpha']);
      const moved = await store.get('agent:writer:channel:api:scope:per_peer:a');
      assert.equal(moved?.agentId, 'writer');
      assert.equal(moved?.title, 'Quarterly 报告 Plan');
      await assert.rejects(
        store.move(
          'agent:main:channel:api:scope:per_peer:b',
          'agent:writer:channel:api:scope:per_peer:a',
          'writer',
        ),
        /exists already/,
      );
    });
  });
