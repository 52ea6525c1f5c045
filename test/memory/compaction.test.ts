// Lossless compaction proven on a scripted model: a long session with large tool outputs and
// planted identifiers goes through many compactions; nothing is lost, every request is valid and
// fits, the identifiers survive, and the memory flush runs once per compaction.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startMemoryApp, plantedId, userInput, type MemoryApp } from './memory-harness.ts';

const TURNS = 1000;

describe('a 1,000-turn session with large tool outputs and 50 planted identifiers', () => {
  let m: MemoryApp;
  const key = () => m.key('long');

  before(async () => {
    m = await startMemoryApp();
    for (let index = 0; index < TURNS; index += 1) await m.turn('long', userInput(index));
  });
  after(() => m.close());

  it('goes through 10+ compactions, each after exactly one memory flush, with every request valid and within the window', async () => {
    const summaries = await m.t.services.sessions.summaries(key());
    assert.ok(summaries.length >= 10, `${summaries.length} compactions`);
    assert.equal(m.model.flushTurns(), summaries.length, 'one flush per compaction');
    assert.equal(m.model.count('summary'), summaries.length, 'no retries were needed');
    assert.deepEqual(m.model.violations, []);
    const largest = Math.max(...m.model.requests.map((request) => request.tokens));
    assert.ok(largest <= 6000, `largest request ${largest} tokens`);
  });

  it('keeps every raw message, in order, and summaries record contiguous ranges', async () => {
    const entries = await m.t.services.sessions.entries(key());
    const users = entries
      .filter((entry) => entry.message.role === 'user')
      .map((entry) => entry.message.content);
    assert.deepEqual(
      users,
      Array.from({ length: TURNS }, (_, index) => userInput(index)),
    );
    // 2 messages per turn, 4 for a turn that reads a file.
    assert.equal(entries.length, TURNS * 2 + (TURNS / 10) * 2);
    const ids = entries.map((entry) => entry.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    const summaries = await m.t.services.sessions.summaries(key());
    let next = ids[0];
    for (const summary of summaries) {
      assert.equal(summary.firstId, next, 'each summary starts where the previous one ended');
      const first = entries.find((entry) => entry.id === summary.firstId);
      assert.equal(first?.message.role, 'user', 'a summary folds whole turns');
      next = ids[ids.indexOf(summary.lastId) + 1];
    }
  });

  it('GET .../messages returns every message in order, folded ones marked, and the summary entries after their range', async () => {
    const entries = await m.t.services.sessions.entries(key());
    const summaries = await m.t.services.sessions.summaries(key());
    const seen: Array<Record<string, unknown>> = [];
    for (let page = 1; ; page += 1) {
      const response = await m.t.app.inject({
        url: `/api/v1/agents/keeper/sessions/long/messages?page=${page}&size=100`,
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json<{ data: Array<Record<string, unknown>>; total: number }>();
      seen.push(...body.data);
      if (seen.length >= body.total) break;
    }
    const messages = seen.filter((view) => view['role'] !== 'summary');
    const hash = (items: unknown[]) => createHash('sha256').update(JSON.stringify(items)).digest('hex');
    assert.equal(
      hash(messages.map((view) => [view['id'], view['content'] ?? null])),
      hash(entries.map((entry) => [entry.id, entry.message.content ?? null])),
      'the same messages, byte for byte, in order',
    );
    const lastFolded = summaries.at(-1)?.lastId ?? 0;
    for (const view of messages) assert.equal(view['folded'] === true, Number(view['id']) <= lastFolded);
    const listed = seen.flatMap((view, index) => (view['role'] === 'summary' ? [{ view, index }] : []));
    assert.equal(listed.length, summaries.length);
    for (const { view, index } of listed) assert.equal(seen[index - 1]?.['id'], view['lastId']);
  });

  it('every planted identifier is in the summary or in the top 5 of memory or session search', async () => {
    const summary = (await m.t.services.sessions.latestSummary(key()))?.content ?? '';
    let inSummary = 0;
    for (let index = 7; index < TURNS; index += 20) {
      const id = plantedId(index);
      if (summary.includes(id)) {
        inSummary += 1;
        continue;
      }
      const memory = await m.t.services.memory.search('keeper', id, 5);
      const sessions = await m.t.services.sessionSearch.search('keeper', {}, id, 5);
      assert.ok(
        memory.some((hit) => hit.snippet.includes(id)) || sessions.some((hit) => hit.snippet.includes(id)),
        `${id} was lost`,
      );
    }
    assert.ok(inSummary >= 40, `${inSummary} of 50 identifiers in the summary`);
    const memory = await m.t.services.memory.search('keeper', plantedId(7), 5);
    assert.ok(memory[0]?.snippet.includes(plantedId(7)), 'the flush wrote the identifier to memory');
  });

  it('the newest turns are sent verbatim after the system prompt and the summary', () => {
    const turns = m.model.requests.filter((request) => request.kind === 'turn');
    const last = turns.at(-1)?.body['messages'] as Array<{ role: string; content: string }>;
    assert.equal(last[0]?.role, 'system');
    assert.equal(last[1]?.role, 'system');
    assert.match(last[1]?.content ?? '', /^\[Summary of the earlier conversation\]/);
    assert.equal(last[2]?.role, 'user', 'after the summary comes a whole turn');
    const users = last.filter((message) => message.role === 'user').map((message) => message.content);
    assert.deepEqual(users.slice(-3), [userInput(TURNS - 3), userInput(TURNS - 2), userInput(TURNS - 1)]);
  });
});
