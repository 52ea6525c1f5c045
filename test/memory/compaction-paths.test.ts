// The three compaction paths (threshold, overflow, manual) each flush memory exactly once; a
// failing summariser leaves the history as it was; the same inputs give byte-identical requests;
// a stopped or failed turn keeps the user's message and its partial answer or error.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChatMessage } from '../../src/model-providers/types.ts';
import { Compactor } from '../../src/turns/compactor.ts';
import { memoryAccess } from '../../src/turns/memory-access.ts';
import { collectTurn } from '../../src/turns/turn-events.ts';
import { AGENT, startMemoryApp, userInput, type MemoryApp } from './memory-harness.ts';

let m: MemoryApp | undefined;
afterEach(async () => {
  await m?.close();
  m = undefined;
});

async function messagesOf(app: MemoryApp, sessionId: string): Promise<Array<Record<string, unknown>>> {
  const response = await app.t.app.inject({
    url: `/api/v1/agents/${AGENT}/sessions/${sessionId}/messages?size=100`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ data: Array<Record<string, unknown>> }>().data;
}

function lastTurnMessages(app: MemoryApp): Array<{ role: string; content: string | null }> {
  const turns = app.model.requests.filter((request) => request.kind === 'turn');
  return turns.at(-1)?.body['messages'] as Array<{ role: string; content: string | null }>;
}

describe('compaction paths', () => {
  for (const fault of ['error500', 'empty', 'drop'] as const) {
    it(`a summariser that answers ${fault} is retried 3 times, then the history stays as it was and the turn goes on`, async () => {
      m = await startMemoryApp({ window: 3000, compaction: { keep_recent_tokens: 300 } });
      m.model.failSummaries(fault, 3);
      let turns = 0;
      while (m.model.count('summary') < 3) {
        await m.turn('s', `${userInput(turns)} ORD-${500 + turns}`);
        turns += 1;
        assert.ok(turns < 100, 'the trigger was never reached');
      }
      assert.equal(m.model.count('summary'), 3, 'bounded retries');
      assert.equal(m.model.flushTurns(), 1, 'one flush for the one compaction attempted');
      assert.deepEqual(await m.t.services.sessions.summaries(m.key('s')), [], 'no summary was written');
      const stored = await m.t.services.sessions.entries(m.key('s'));
      assert.equal(stored.filter((entry) => entry.message.role === 'user').length, turns, 'nothing lost');
      assert.deepEqual(m.model.violations, []);
      // The next turn compacts for real.
      await m.turn('s', 'one more');
      assert.equal((await m.t.services.sessions.summaries(m.key('s'))).length, 1);
      assert.equal(m.model.flushTurns(), 2);
    });
  }

  it('a summariser that times out is retried within its attempts and leaves the session unchanged', async () => {
    m = await startMemoryApp({ window: 100_000 });
    for (let index = 0; index < 6; index += 1) await m.turn('t', `turn ${index} ORD-${700 + index}`);
    const { services } = m.t;
    const compactor = new Compactor({
      sessions: services.sessions,
      defaults: () => ({ keep_recent_tokens: 10, memory_flush: false }),
      models: services.models,
      attempts: 2,
      timeoutMs: 50,
    });
    m.model.failSummaries('hang', 2);
    const before = await services.sessions.entries(m.key('t'));
    const result = await compactor.compact(
      {
        key: m.key('t'),
        agentId: AGENT,
        memory: memoryAccess(services.memory, services.sessionSearch, AGENT, m.key('t')),
      },
      {
        system: [],
        inputs: [],
        tools: [],
        provider: services.models.get('scripted'),
        model: 'scripted-1',
        window: 100_000,
        reserve: 0,
        signal: AbortSignal.timeout(10_000),
      },
      'manual',
    );
    assert.equal(result.compacted, false);
    assert.match(result.reason ?? '', /failed after 2 attempts: the summariser failed/);
    assert.equal(m.model.count('summary'), 2);
    assert.deepEqual(await services.sessions.entries(m.key('t')), before);
    assert.deepEqual(await services.sessions.summaries(m.key('t')), []);
  });

  it('a provider error saying the context is too long compacts (after one flush) and retries once', async () => {
    m = await startMemoryApp({ window: 100_000 });
    for (let index = 0; index < 6; index += 1) await m.turn('o', `turn ${index} with ORD-${900 + index}`);
    const turnsBefore = m.model.count('turn');
    m.model.overflowNext(1);
    const output = await m.turn('o', 'and now?');
    assert.match(output.text, /^noted: and now\?/);
    assert.equal(m.model.count('turn') - turnsBefore, 2, 'the refused request and its one retry');
    assert.equal(m.model.flushTurns(), 1);
    const summaries = await m.t.services.sessions.summaries(m.key('o'));
    assert.equal(summaries.length, 1);
    for (let index = 0; index < 5; index += 1)
      assert.ok(summaries[0]?.content.includes(`ORD-${900 + index}`));
    // Refused twice: the error stands (one retry only).
    m.model.overflowNext(2);
    await assert.rejects(m.turn('o', 'again?'), /maximum context length/);
  });

  it("a turn's memory flush and summary are metered as the turn's agent, channel and user, like its own calls", async () => {
    m = await startMemoryApp({ window: 100_000 });
    const app = m;
    const turn = (input: string) =>
      app.t.services.turns.complete({
        agentId: AGENT,
        input,
        session: {
          key: app.key('metered'),
          info: { agentId: AGENT, channel: 'telegram', scope: 'per_peer' },
        },
        metadata: { channel: 'telegram', accountId: 'bot-1', senderId: 'user-7' },
        signal: AbortSignal.timeout(30_000),
      });
    for (let index = 0; index < 6; index += 1) await turn(`turn ${index} with ORD-${700 + index}`);
    app.model.overflowNext(1);
    await turn('and now?');
    assert.equal(app.model.flushTurns(), 1);
    assert.equal(app.model.count('summary'), 1);
    const calls = app.model.requests.length;
    for (const [groupBy, key] of [
      ['agent', AGENT],
      ['channel', 'telegram'],
      ['user', 'user-7'],
    ] as const) {
      const response = await app.t.app.inject({ url: `/api/v1/usage?groupBy=${groupBy}` });
      assert.equal(response.statusCode, 200, response.body);
      const groups = response.json<{ groups: Array<{ key: string; calls: number }> }>().groups;
      // Every call the model saw (the turns', the refused one, the flush and the summary) in one group.
      assert.deepEqual(
        groups.map((group) => [group.key, group.calls]),
        [[key, calls]],
        groupBy,
      );
    }
  });

  it('POST .../compact flushes once, folds all but the newest turns and marks them folded; errors are clear', async () => {
    m = await startMemoryApp({ window: 100_000, compaction: { keep_recent_tokens: 50 } });
    for (let index = 0; index < 8; index += 1) await m.turn('m', `turn ${index} ref ORD-${300 + index}`);
    const post = (url: string) => m?.t.app.inject({ method: 'POST', url }) ?? assert.fail();
    const response = await post(`/api/v1/agents/${AGENT}/sessions/m/compact`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{
      compacted: boolean;
      flushed: boolean;
      folded: number;
      summary: { content: string };
    }>();
    assert.equal(body.compacted, true);
    assert.equal(body.flushed, true);
    assert.ok(body.folded >= 8 && body.folded % 2 === 0, `${body.folded} folded`);
    assert.match(body.summary.content, /ORD-300/);
    assert.equal(m.model.flushTurns(), 1);
    const views = await messagesOf(m, 'm');
    assert.equal(views.filter((view) => view['role'] === 'user').length, 8);
    assert.ok(views.some((view) => view['role'] === 'summary'));
    assert.equal(views.filter((view) => view['folded'] === true).length, body.folded);
    const again = (await post(`/api/v1/agents/${AGENT}/sessions/m/compact`)).json<{
      compacted: boolean;
      flushed: boolean;
    }>();
    assert.deepEqual([again.compacted, again.flushed], [false, false], 'nothing left to fold, no flush');
    assert.equal(m.model.flushTurns(), 1);
    const missing = await post(`/api/v1/agents/${AGENT}/sessions/nope/compact`);
    assert.equal(missing.statusCode, 404);
    assert.match(missing.json<{ error: string }>().error, /session "nope" of agent "keeper" not found/);
    assert.equal((await post('/api/v1/agents/ghost/sessions/m/compact')).statusCode, 404);
    // Appends racing a compaction lose and duplicate nothing.
    const racing = Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        m?.t.services.sessions.append(m.key('m'), { agentId: AGENT, channel: 'api', scope: 'per_peer' }, [
          { role: 'user', content: `racing ${index}` },
        ]),
      ),
    );
    const [compacted] = await Promise.all([post(`/api/v1/agents/${AGENT}/sessions/m/compact`), racing]);
    assert.equal(compacted.statusCode, 200);
    const after = await m.t.services.sessions.entries(m.key('m'));
    const racingStored = after.filter((entry) => String(entry.message.content).startsWith('racing '));
    assert.equal(racingStored.length, 10);
    assert.equal(new Set(after.map((entry) => entry.id)).size, after.length);
  });

  it('the same inputs give byte-identical requests, compactions included', async () => {
    const run = async (): Promise<string[]> => {
      const app = await startMemoryApp({ window: 2500, compaction: { keep_recent_tokens: 200 } });
      try {
        for (let index = 0; index < 40; index += 1) await app.turn('d', userInput(index));
        assert.ok((await app.t.services.sessions.summaries(app.key('d'))).length >= 2);
        return app.model.requests.map((request) => JSON.stringify(request.body));
      } finally {
        await app.close();
      }
    };
    const first = await run();
    const second = await run();
    assert.equal(first.length, second.length);
    assert.deepEqual(second, first);
  });

  it('a failed turn keeps the user message and its error, and the model sees both next time', async () => {
    m = await startMemoryApp({ window: 100_000 });
    await m.turn('f', 'hello');
    m.model.failTurns(1);
    await assert.rejects(m.turn('f', 'this one fails'));
    const views = await messagesOf(m, 'f');
    assert.deepEqual(
      views.slice(2).map((view) => [view['role'], view['content'], view['status']]),
      [
        ['user', 'this one fails', undefined],
        ['assistant', null, 'failed'],
      ],
    );
    assert.match(String(views[3]?.['error']), /500/);
    await m.turn('f', 'try again');
    const sent = lastTurnMessages(m).map((message) => message.content);
    assert.ok(sent.includes('this one fails'));
    assert.ok(sent.some((content) => /^\[this turn failed: .*500/.test(content ?? '')));
  });

  it('a stopped turn keeps the user message and its partial answer marked as stopped', async () => {
    m = await startMemoryApp({ window: 100_000 });
    m.model.stallAfter('a partial ans');
    const events = m.t.services.turns.run({
      agentId: AGENT,
      input: 'tell me a long story',
      session: { key: m.key('p'), info: { agentId: AGENT, channel: 'api', scope: 'per_peer' } },
      signal: AbortSignal.timeout(30_000),
    });
    let received = '';
    for await (const event of events) {
      if (event.type === 'text-delta') received += event.text;
      if (received === 'a partial ans') break;
    }
    const views = await messagesOf(m, 'p');
    assert.deepEqual(
      views.map((view) => [view['role'], view['content'], view['status']]),
      [
        ['user', 'tell me a long story', undefined],
        ['assistant', 'a partial ans', 'stopped'],
      ],
    );
    await collectTurn(
      m.t.services.turns.run({
        agentId: AGENT,
        input: 'go on',
        session: { key: m.key('p'), info: { agentId: AGENT, channel: 'api', scope: 'per_peer' } },
        signal: AbortSignal.timeout(30_000),
      }),
    );
    const sent: ChatMessage['role'][] = lastTurnMessages(m).map(
      (message) => message.role as ChatMessage['role'],
    );
    assert.deepEqual(sent, ['system', 'user', 'assistant', 'user']);
    assert.match(String(lastTurnMessages(m)[2]?.content), /^a partial ans\n\n\[this answer was stopped/);
  });
});
