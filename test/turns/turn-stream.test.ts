// A turn is one async iterable of typed events: every consumer (chat, channels, cron) reads it.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { isAppError } from '../../src/core/errors.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { collectTurn, type TurnEvent } from '../../src/turns/turn-events.ts';

describe('turn stream', () => {
  let t: TestApp | undefined;
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    await t?.close();
    await upstream?.close();
    t = undefined;
    upstream = undefined;
  });

  it('yields tool calls, text, usage and ends with done holding the whole answer', async () => {
    t = await createTestApp();
    const events: TurnEvent[] = [];
    for await (const event of t.services.turns.run({
      agentId: 'main',
      input: 'list files please',
      signal: new AbortController().signal,
    }))
      events.push(event);
    const types = events.map((event) => event.type);
    assert.ok(types.indexOf('tool-call-start') < types.indexOf('tool-call-result'));
    assert.ok(types.indexOf('tool-call-result') < types.indexOf('text-delta'));
    assert.ok(types.includes('usage'));
    assert.equal(types.at(-1), 'done');
    const start = events.find((event) => event.type === 'tool-call-start');
    const result = events.find((event) => event.type === 'tool-call-result');
    assert.equal(start?.type === 'tool-call-start' && start.toolCallName, 'glob');
    assert.equal(
      result?.type === 'tool-call-result' && result.toolCallId,
      start?.type === 'tool-call-start' && start.toolCallId,
    );
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    assert.equal(done.text, text);
    assert.ok((done.usage?.totalTokens ?? 0) > 0);
  });

  it('complete() folds the same turn as collecting run()', async () => {
    t = await createTestApp();
    const input = { agentId: 'main', input: 'hello there', signal: new AbortController().signal };
    const streamed = await collectTurn(t.services.turns.run(input));
    const folded = await t.services.turns.complete(input);
    assert.equal(folded.text, streamed.text);
    assert.match(folded.text, /hello there/);
    assert.deepEqual(folded.usage, streamed.usage);
  });

  it('a failed model call ends the stream with an error event carrying its kind', async () => {
    upstream = await startFakeUpstream({ mode: 'error500' });
    t = await createTestApp({
      config: { models: upstream.modelsConfig() },
      services: { models: { retryBaseMs: 1 } },
    });
    const events: TurnEvent[] = [];
    for await (const event of t.services.turns.run({
      agentId: 'main',
      input: 'hi',
      signal: new AbortController().signal,
    }))
      events.push(event);
    const last = events.at(-1);
    assert.equal(last?.type, 'error');
    assert.ok(last?.type === 'error' && isAppError(last.error), 'the cause is an AppError');
    assert.equal(last.type === 'error' && isAppError(last.error) && last.error.kind, 'upstream');
    await assert.rejects(
      collectTurn(
        t.services.turns.run({ agentId: 'main', input: 'hi', signal: new AbortController().signal }),
      ),
      (error: unknown) => isAppError(error) && error.kind === 'upstream',
    );
  });

  it('leaving the loop early stops the turn and its model call', { timeout: 15_000 }, async () => {
    upstream = await startFakeUpstream({ mode: 'hang' });
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    const seen = upstream.clientAborts;
    const turn = t.services.turns.run({ agentId: 'main', input: 'hi', signal: new AbortController().signal });
    const iterator = turn[Symbol.asyncIterator]();
    const first = iterator.next();
    for (let waited = 0; upstream.requestCount === 0 && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(upstream.requestCount, 1, 'the model call started');
    const stopped = iterator.return?.(undefined);
    await upstream.waitForClientAbort(seen);
    await Promise.all([first, stopped]);
  });
});
