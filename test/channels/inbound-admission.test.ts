// The checks around a channel turn, driven through handleInbound with a recording adapter: a usage
// check that cannot answer (its store is away) is not a free pass, and a plain reply asks the
// durable inbox for its hold once, just before the send.
import assert from 'node:assert/strict';
import { answering, inboundDeps } from './inbound-deps.ts';
import { describe, it } from 'node:test';
import { APOLOGY, handleInbound, type InboundDeps } from '../../src/channels/inbound.ts';
import type { ChannelAdapter, InboundMessage } from '../../src/channels/types.ts';
import type { UsageGuard } from '../../src/usage/guard.ts';

const message: InboundMessage = {
  platform: 'telegram',
  accountId: 'bot1',
  chatId: '42',
  chatType: 'dm',
  senderId: '42',
  text: 'hello',
  messageId: 'm1',
};

function depsWith(overrides: Partial<InboundDeps>) {
  const sent: string[] = [];
  const adapter = {
    platform: 'telegram',
    capabilities: { editMessage: false, typing: false },
    sendText: async (_account: unknown, _chatId: string, text: string) => {
      sent.push(text);
      return { messageId: String(sent.length) };
    },
  } as unknown as ChannelAdapter;
  const { turns, ran } = answering('the answer');
  const deps = inboundDeps(adapter, turns, overrides);
  return { deps, sent, turnsRun: ran };
}

describe('channel turn admission and hold', () => {
  it('a usage check that never answers is refused with the apology after the wait, with no turn', async () => {
    const guard = { admitChannelUser: () => new Promise<void>(() => undefined) } as unknown as UsageGuard;
    const { deps, sent, turnsRun } = depsWith({ guard });
    const outcome = await handleInbound(message, deps);
    assert.equal(outcome, 'apologized');
    assert.deepEqual(sent, [APOLOGY]);
    assert.equal(turnsRun(), 0);
  });

  it('a usage check that fails (Redis away) is refused the same way', async () => {
    const guard = {
      admitChannelUser: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6390')),
    } as unknown as UsageGuard;
    const { deps, sent, turnsRun } = depsWith({ guard });
    assert.equal(await handleInbound(message, deps), 'apologized');
    assert.deepEqual(sent, [APOLOGY]);
    assert.equal(turnsRun(), 0);
  });

  it('a plain reply asks for the hold once; a lost hold sends nothing', async () => {
    let asked = 0;
    const owned = depsWith({ stillOwned: () => Promise.resolve(++asked > 0) });
    assert.equal(await handleInbound(message, owned.deps), 'replied');
    assert.deepEqual(owned.sent, ['the answer']);
    assert.equal(asked, 1);
    const lost = depsWith({ stillOwned: () => Promise.resolve(false) });
    assert.equal(await handleInbound(message, lost.deps), 'taken');
    assert.deepEqual(lost.sent, []);
  });
});
