// A chat platform user over a budget or a rate limit (fake Telegram): told once, politely, per
// budget period (or minute), not once per message; no model call is made for refused messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InboundOutcome } from '../../src/channels/inbound.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { formatLocal, periodOf } from '../../src/usage/periods.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('budgets and rate limits on a chat platform', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let t: TestApp;
  const outcomes: Array<{ sender: string; outcome: InboundOutcome }> = [];

  before(async () => {
    upstream = await startFakeUpstream({
      reply: 'Here you go.',
      usage: () => ({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 }),
    });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
    t = await createTestApp({
      config: {
        models: upstream.modelsConfig(),
        channels: {
          telegram: { enabled: true, accounts: { bot1: { app_secret: TOKEN, api_base: tg.url } } },
        },
        budgets: [{ id: 'per-user', scope: { user: '4242' }, tokens: 100 }],
        rate_limits: { user_per_minute: 3 },
      },
      services: {
        channels: {
          backoff: { baseMs: 20, maxMs: 100 },
          onHandled: (message, outcome) => void outcomes.push({ sender: message.senderId, outcome }),
        },
      },
    });
  });
  after(async () => {
    await t?.close();
    await tg?.close();
    await upstream?.close();
  });

  const textsTo = (chatId: number): string[] =>
    tg
      .callsOf('sendMessage')
      .filter((call) => String(call.params['chat_id']) === String(chatId))
      .map((call) => String(call.params['text']));

  it('a user over the budget gets one polite notice, not one per message, and costs no model call', async () => {
    tg.pushMessage({ chatId: 4242, fromId: 4242, text: 'first question' });
    await waitFor(() => outcomes.length === 1, 'the first answer');
    assert.deepEqual(textsTo(4242), ['Here you go.']);
    const calls = upstream.requestCount;
    // 150 tokens of 100 spent: every further message of this user is refused.
    for (const text of ['second', 'third']) tg.pushMessage({ chatId: 4242, fromId: 4242, text });
    await waitFor(() => outcomes.length === 3, 'two refused messages');
    assert.deepEqual(
      outcomes.map((entry) => entry.outcome),
      ['replied', 'refused', 'refused'],
    );
    const resetsAt = formatLocal(periodOf('day', Date.now()).end);
    assert.deepEqual(textsTo(4242), [
      'Here you go.',
      `Sorry, the usage limit for this assistant has been reached, so I cannot answer now. It resets at ${resetsAt}.`,
    ]);
    assert.equal(upstream.requestCount, calls, 'no model call for a refused message');
    // Another user is not in the budget's scope.
    tg.pushMessage({ chatId: 77, fromId: 77, text: 'hello' });
    await waitFor(() => outcomes.length === 4, 'the other user');
    assert.deepEqual(textsTo(77), ['Here you go.']);
  });

  it('a user over the rate limit is told once per minute; the rest are dropped without a model call', async () => {
    // The limit counts per clock minute: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_100 - intoMinute));
    const calls = upstream.requestCount;
    const seen = outcomes.length;
    // User 88 may send 3 messages a minute.
    for (let index = 0; index < 6; index += 1)
      tg.pushMessage({ chatId: 88, fromId: 88, text: `message ${index}` });
    await waitFor(() => outcomes.length === seen + 6, 'six messages');
    const mine = outcomes.slice(seen).map((entry) => entry.outcome);
    assert.equal(mine.filter((outcome) => outcome === 'replied').length, 3, mine.join());
    assert.equal(mine.filter((outcome) => outcome === 'refused').length, 3, mine.join());
    const texts = textsTo(88);
    assert.equal(texts.filter((text) => text === 'Here you go.').length, 3);
    assert.deepEqual(
      texts.filter((text) => text !== 'Here you go.'),
      ['You are sending messages faster than I can answer. Please wait a minute and try again.'],
    );
    assert.equal(upstream.requestCount, calls + 3);
  });
});
