// Every turn ends, whatever the model does. For each fault of the fault model, over HTTP chat
// completions (streamed and not) and through a chat platform (the in-memory one): the turn ends
// within the turn timeout plus 2 s with an answer or a visible error, a partial answer is stored and
// marked, the session's next message is answered normally and no turn is left holding or waiting
// for the session. Then a mixed run with 20% of model calls faulted checks the same invariants and
// prints its figures.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InboundMessage } from '../../src/channels/types.ts';
import type { InboundOutcome } from '../../src/channels/inbound.ts';
import { channelSession, INTERRUPTED } from '../../src/channels/inbound.ts';
import { apiSession } from '../../src/chat/chat-request.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { FakeChannelAdapter, FakeChatHub } from '../fakes/fake-channel.ts';
import { FAULT_KINDS, startFaultModel, type FaultKind, type FaultModel } from '../fakes/fault-model.ts';

const TURN_TIMEOUT_MS = 4_000;
const MARGIN_MS = 2_000;
const PLATFORM = 'discord';

type Transport = 'http-stream' | 'http-plain' | 'channel';
const TRANSPORTS: Transport[] = ['http-stream', 'http-plain', 'channel'];

interface Outcome {
  kind: 'answer' | 'error';
  text: string;
  ms: number;
}

/** Faults that come after text was streamed: the turn keeps a partial answer. */
const afterText = (kind: FaultKind): boolean => kind === 'disconnect' || kind === 'stall';

describe('chaos: every turn ends whatever the model does', { timeout: 120_000 }, () => {
  let model: FaultModel;
  let t: TestApp;
  const hub = new FakeChatHub();
  const handled = new Map<string, InboundOutcome>();
  let nextMessage = 1;

  before(async () => {
    model = await startFaultModel({ retryAfterSeconds: 1 });
    t = await createTestApp({
      listen: true,
      config: {
        models: model.modelsConfig({
          timeout_ms: 3_000,
          first_byte_timeout_ms: 500,
          idle_timeout_ms: 500,
          max_retries: 1,
        }),
        agents: { turn_timeout_ms: TURN_TIMEOUT_MS },
        channels: { [PLATFORM]: { enabled: true, accounts: { bot1: { app_secret: hub.secret } } } },
      },
      services: {
        models: { retryBaseMs: 5 },
        channels: {
          adapters: [new FakeChannelAdapter(PLATFORM, hub)],
          onHandled: (message, outcome) => void handled.set(message.messageId ?? '', outcome),
        },
      },
    });
    await hub.until(() => hub.live === 1, 'the channel connection');
    // The first model call of a process loads the SDK on the model worker: not what is measured.
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'main', messages: [{ role: 'user', content: 'warm-up' }] },
    });
    model.reset();
  });
  after(async () => {
    await t?.close();
    await model?.close();
  });

  async function httpTurn(sessionId: string, content: string, stream: boolean): Promise<Outcome> {
    const started = Date.now();
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', sessionId, stream, messages: [{ role: 'user', content }] }),
    });
    const body = await response.text();
    const ms = Date.now() - started;
    if (!stream) {
      const parsed = JSON.parse(body) as {
        error?: string;
        choices?: Array<{ message: { content: string } }>;
      };
      if (response.status === 200)
        return { kind: 'answer', text: parsed.choices?.[0]?.message.content ?? '', ms };
      assert.equal(typeof parsed.error, 'string', `a ${response.status} names its error`);
      return { kind: 'error', text: parsed.error ?? '', ms };
    }
    assert.equal(response.status, 200);
    const frames = body
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => frame.slice('data: '.length));
    let text = '';
    for (const frame of frames) {
      if (frame === '[DONE]') return { kind: 'answer', text, ms };
      const chunk = JSON.parse(frame) as {
        error?: string;
        choices?: Array<{ delta?: { content?: string } }>;
      };
      if (typeof chunk.error === 'string') return { kind: 'error', text: `${text}|${chunk.error}`, ms };
      text += chunk.choices?.[0]?.delta?.content ?? '';
    }
    assert.fail(`the stream ended with neither [DONE] nor an error frame: ${body.slice(-200)}`);
  }

  async function channelTurn(chatId: string, text: string): Promise<Outcome & { messageId: string }> {
    const messageId = `msg-${nextMessage++}`;
    const started = Date.now();
    hub.send('bot1', {
      platform: PLATFORM,
      chatId,
      chatType: 'dm',
      senderId: `user-${chatId}`,
      text,
      messageId,
    });
    await hub.until(
      () => handled.has(messageId),
      `the reply to ${messageId}`,
      TURN_TIMEOUT_MS + MARGIN_MS + 3_000,
    );
    const ms = Date.now() - started;
    const replies = hub.sent.filter((sent) => sent.chatId === chatId && sent.replyTo === messageId);
    assert.equal(replies.length, 1, `one reply to ${messageId}`);
    const outcome = handled.get(messageId);
    const reply = replies[0]?.content ?? '';
    return { kind: outcome === 'replied' ? 'answer' : 'error', text: reply, ms, messageId };
  }

  const sessionKeyOf = (transport: Transport, id: string): string =>
    transport === 'channel'
      ? channelSession(
          {
            platform: PLATFORM,
            accountId: 'bot1',
            chatId: id,
            chatType: 'dm',
            senderId: `user-${id}`,
            text: '',
          } as InboundMessage,
          'main',
        ).key
      : apiSession('main', id, undefined).key;

  function turn(transport: Transport, id: string, text: string): Promise<Outcome> {
    if (transport === 'channel') return channelTurn(id, text);
    return httpTurn(id, text, transport === 'http-stream');
  }

  for (const kind of FAULT_KINDS) {
    for (const transport of TRANSPORTS) {
      it(`${kind} over ${transport}: the turn ends in time, visibly, and the session goes on`, async () => {
        const id = `${kind}-${transport}`;
        // Faults before any output are retried once: fault both attempts so the failure shows.
        model.script(...Array.from({ length: afterText(kind) ? 1 : 2 }, () => kind));
        const first = await turn(transport, id, `first ${id}`);
        assert.ok(first.ms <= TURN_TIMEOUT_MS + MARGIN_MS, `ended after ${first.ms} ms`);
        assert.equal(first.kind, 'error', `a visible error, got ${JSON.stringify(first)}`);
        const key = sessionKeyOf(transport, id);
        const stored = await t.services.sessions.entries(key);
        const answer = stored.at(-1);
        assert.equal(answer?.message.role, 'assistant');
        assert.equal(answer?.status, 'failed');
        assert.ok(answer?.error, 'the failure is stored with its reason');
        if (afterText(kind)) {
          // The partial answer is kept, marked failed, and shown where the client can see it.
          assert.equal(answer?.message.content, 'Partial answer ');
          if (transport === 'http-stream') assert.match(first.text, /^Partial answer \|/);
          if (transport === 'channel') assert.equal(first.text, `Partial answer \n\n${INTERRUPTED}`);
        }
        assert.equal(t.services.turns.queuedTurns(key), 0, 'no turn holds or waits for the session');
        const next = await turn(transport, id, `second ${id}`);
        assert.deepEqual(
          { kind: next.kind, text: next.text },
          { kind: 'answer', text: `Answer to: second ${id}` },
        );
      });
    }
  }

  it('a mixed run with 20% of model calls faulted: every turn answered or failed visibly, none stuck', async () => {
    model.reset();
    model.setRate(0.2);
    const sessions = 9;
    const turnsPerSession = 6;
    const figures = {
      turns: 0,
      answered: 0,
      visibleErrors: 0,
      stuck: 0,
      duplicates: 0,
      lost: 0,
      slowestMs: 0,
    };
    const keys: string[] = [];
    await Promise.all(
      Array.from({ length: sessions }, async (_, index) => {
        const transport = TRANSPORTS[index % TRANSPORTS.length] as Transport;
        const id = `mixed-${index}`;
        keys.push(sessionKeyOf(transport, id));
        for (let step = 0; step < turnsPerSession; step += 1) {
          figures.turns += 1;
          const text = `mixed ${index} ${step}`;
          const outcome = await turn(transport, id, text).catch((error: unknown) => {
            figures.lost += 1;
            throw error;
          });
          figures.slowestMs = Math.max(figures.slowestMs, outcome.ms);
          if (outcome.ms > TURN_TIMEOUT_MS + MARGIN_MS) figures.stuck += 1;
          if (outcome.kind === 'answer') {
            figures.answered += 1;
            assert.equal(outcome.text, `Answer to: ${text}`);
          } else {
            figures.visibleErrors += 1;
            assert.notEqual(outcome.text.trim(), '');
          }
        }
      }),
    );
    model.setRate(0);
    for (const key of keys) if (t.services.turns.queuedTurns(key) !== 0) figures.stuck += 1;
    // One reply per inbound message, never two.
    const perMessage = new Map<string, number>();
    for (const sent of hub.sent) {
      if (sent.replyTo) perMessage.set(sent.replyTo, (perMessage.get(sent.replyTo) ?? 0) + 1);
    }
    figures.duplicates = [...perMessage.values()].filter((count) => count > 1).length;
    const report = {
      ...figures,
      modelCalls: model.calls,
      faultsInjected: model.faults,
      byKind: model.injected,
    };
    console.log(`chaos turn-faults: ${JSON.stringify(report)}`);
    assert.ok(model.faults > 0, 'faults were injected');
    assert.equal(figures.answered + figures.visibleErrors, figures.turns);
    assert.deepEqual(
      { stuck: figures.stuck, duplicates: figures.duplicates, lost: figures.lost },
      { stuck: 0, duplicates: 0, lost: 0 },
    );
  });
});

describe('chaos: the turn time limit ends what the model call limits would not', { timeout: 60_000 }, () => {
  let model: FaultModel;
  let t: TestApp;
  const LIMIT_MS = 1_500;
  before(async () => {
    model = await startFaultModel();
    t = await createTestApp({
      listen: true,
      config: {
        // The provider would wait for minutes; the turn may take 1.5 s.
        models: model.modelsConfig({
          timeout_ms: 600_000,
          first_byte_timeout_ms: 600_000,
          idle_timeout_ms: 600_000,
        }),
        agents: { turn_timeout_ms: LIMIT_MS, max_queued_turns: 2 },
      },
    });
    // Loads the SDK on the model worker (which a 1.5 s turn may not have time for on a busy machine).
    for (let tries = 0; tries < 5; tries += 1) if ((await chat('warm-up', 'warm-up')).status === 200) break;
    model.reset();
  });
  after(async () => {
    await t?.close();
    await model?.close();
  });

  const chat = (sessionId: string, content: string, stream = false) =>
    fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', sessionId, stream, messages: [{ role: 'user', content }] }),
    });

  for (const kind of ['stall', 'no-headers'] as const) {
    it(`${kind}: the turn fails with a 504 at its limit, what was streamed kept, and the session answers again`, async () => {
      model.script(kind);
      const started = Date.now();
      const response = await chat(`limit-${kind}`, 'first');
      const took = Date.now() - started;
      assert.equal(response.status, 504);
      assert.match(
        ((await response.json()) as { error: string }).error,
        /the turn did not finish within 1500 ms/,
      );
      assert.ok(took >= LIMIT_MS && took <= LIMIT_MS + MARGIN_MS, `ended after ${took} ms`);
      const key = apiSession('main', `limit-${kind}`, undefined).key;
      const last = (await t.services.sessions.entries(key)).at(-1);
      assert.equal(last?.status, 'failed');
      assert.equal(last?.message.content, kind === 'stall' ? 'Partial answer ' : null);
      assert.equal(t.services.turns.queuedTurns(key), 0);
      const again = await chat(`limit-${kind}`, 'second');
      assert.equal(again.status, 200, await again.clone().text());
      const next = (await again.json()) as {
        choices: Array<{ message: { content: string } }>;
      };
      assert.equal(next.choices[0]?.message.content, 'Answer to: second');
    });
  }

  it('a session with two turns in flight refuses a third at once with a 429; the others end in time', async () => {
    model.script('no-headers', 'no-headers');
    const started = Date.now();
    const first = chat('crowded', 'one', true);
    const second = chat('crowded', 'two');
    const key = apiSession('main', 'crowded', undefined).key;
    while (t.services.turns.queuedTurns(key) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const third = await chat('crowded', 'three');
    assert.equal(third.status, 429);
    assert.match(((await third.json()) as { error: string }).error, /already has 2 messages waiting/);
    const streamed = await (await first).text();
    assert.match(streamed, /"error":"the turn did not finish within 1500 ms"/);
    // The second waited for the first, then timed out: its limit counts from its own start.
    assert.equal((await second).status, 504);
    assert.ok(Date.now() - started <= LIMIT_MS + MARGIN_MS, `ended after ${Date.now() - started} ms`);
    assert.equal(t.services.turns.queuedTurns(key), 0);
  });
});
