// Nothing stuck: a turn whose work ignores its signal still ends at its time limit and releases the
// session; a crashed turn releases it at once; a session's queue is bounded; a waiter whose signal
// aborts leaves the queue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentDirectory } from '../../src/chains/agent-directory.ts';
import { AppError } from '../../src/core/errors.ts';
import type { SessionStore } from '../../src/storage/session-store.ts';
import { TurnRunner } from '../../src/turns/agent-turn.ts';
import { collectTurn } from '../../src/turns/turn-events.ts';
import { WIND_DOWN_MS } from '../../src/turns/turn-limits.ts';

type Behaviour = 'hang' | 'crash' | 'answer';

/** A runner whose agent hangs (ignoring its signal), crashes, or answers, as the next turn says. */
function runner(limits: { timeoutMs: number; maxQueued: number }) {
  const plan: Behaviour[] = [];
  const stored: Array<{ status?: string; error?: string }> = [];
  const agents = {
    require: () => undefined,
    run: async () => {
      const behaviour = plan.shift() ?? 'answer';
      if (behaviour === 'hang') return new Promise(() => undefined);
      if (behaviour === 'crash') throw new Error('the turn crashed');
      return { outcome: 'success', results: [{ data: 'an answer' }] };
    },
  } as unknown as AgentDirectory;
  const sessions = {
    history: async () => [],
    append: async (_key: string, _info: unknown, _messages: unknown, outcome = {}) => {
      stored.push(outcome);
      return [1];
    },
  } as unknown as SessionStore;
  const turns = new TurnRunner(agents, sessions, undefined, {}, undefined, {
    timeoutMs: () => limits.timeoutMs,
    maxQueued: () => limits.maxQueued,
  });
  const session = { key: 'api:s1', info: { agentId: 'main', channel: 'api', scope: 'main' } };
  const input = (signal = new AbortController().signal) => ({
    agentId: 'main',
    input: 'hi',
    session,
    signal,
  });
  return { turns, plan, stored, session, input };
}

describe('turn limits', () => {
  it('a turn whose work ignores its signal ends at its time limit, and the session is free again', async () => {
    const { turns, plan, stored, session, input } = runner({ timeoutMs: 300, maxQueued: 4 });
    plan.push('hang');
    const started = Date.now();
    await assert.rejects(collectTurn(turns.run(input())), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.kind, 'timeout');
      return true;
    });
    const took = Date.now() - started;
    assert.ok(took >= 300 && took < 300 + WIND_DOWN_MS + 1_000, `took ${took} ms`);
    assert.equal(turns.queuedTurns(session.key), 0);
    const next = await turns.complete(input());
    assert.equal(next.text, 'an answer');
    // The hung turn never got to store its outcome; the next one stored its answer normally.
    assert.deepEqual(stored.at(-1), {});
  });

  it('a crashed turn releases the session at once and is stored as failed', async () => {
    const { turns, plan, stored, session, input } = runner({ timeoutMs: 5_000, maxQueued: 4 });
    plan.push('crash');
    await assert.rejects(turns.complete(input()), /the turn crashed/);
    assert.deepEqual(stored.at(-1), { status: 'failed', error: 'the turn crashed' });
    assert.equal(turns.queuedTurns(session.key), 0);
    assert.equal((await turns.complete(input())).text, 'an answer');
  });

  it('a session refuses a turn past its queue bound, and a waiter that gives up leaves the queue', async () => {
    const { turns, plan, session, input } = runner({ timeoutMs: 2_000, maxQueued: 2 });
    plan.push('hang');
    const holder = turns.complete(input());
    const giveUp = new AbortController();
    const waiter = turns.complete(input(giveUp.signal));
    assert.equal(turns.queuedTurns(session.key), 2);
    await assert.rejects(turns.complete(input()), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.kind, 'rate-limited');
      assert.match(error.message, /already has 2 messages waiting/);
      return true;
    });
    const left = Date.now();
    giveUp.abort(new AppError('unavailable', 'the client went away'));
    await assert.rejects(waiter, /the client went away/);
    assert.ok(Date.now() - left < 500, 'a waiter leaves at once');
    assert.equal(turns.queuedTurns(session.key), 1);
    await assert.rejects(holder, (error: unknown) => error instanceof AppError && error.kind === 'timeout');
    assert.equal(turns.queuedTurns(session.key), 0);
    assert.equal((await turns.complete(input())).text, 'an answer');
  });
});
