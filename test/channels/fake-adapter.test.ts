// The channel contract against the in-memory platform, and what only the manager does with it
// (streamed replies edited in place).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestApp } from '../fakes/app-harness.ts';
import { FakeChannelAdapter, FakeChatHub } from '../fakes/fake-channel.ts';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import { channelContract, type ChannelDriver } from './contract.ts';

// The in-memory adapter stands in for the platform "discord": the `adapters` service option replaces
// the built-in adapter of the same platform, so the real Discord adapter is not started here.
function fakeDriver(): ChannelDriver {
  const hub = new FakeChatHub();
  const adapter = new FakeChannelAdapter('discord', hub);
  let rotation = 1;
  return {
    platform: 'discord',
    accountFields: () => ({ app_secret: hub.secret }),
    rotateSecret: () => {
      rotation += 1;
      hub.secret = `fake-secret-000${rotation}`;
      hub.dropAll();
      return { app_secret: hub.secret };
    },
    channelOptions: () => ({ adapters: [adapter] }),
    userSays: async (message) =>
      hub.send('bot1', { platform: 'discord', ...message, mentioned: message.text.startsWith('@bot') }),
    botTexts: (chatId) =>
      hub.sent.filter((sent) => sent.chatId === chatId && sent.kind === 'text').map((sent) => sent.content),
    botMedia: (chatId) =>
      hub.sent
        .filter((sent) => sent.chatId === chatId && sent.kind !== 'text')
        .map((sent) => sent.kind as 'image' | 'file'),
    dropConnection: async () => hub.dropAll(),
    connectAttempts: () => hub.connects,
    dmSender: 'user-1',
    chats: { dm: 'dm-1', group: 'group-1' },
    close: async () => undefined,
  };
}

channelContract('in-memory platform', async () => fakeDriver());

describe('in-memory platform', () => {
  it('a streamed reply is one message, shown at once and edited into the answer', async () => {
    const hub = new FakeChatHub();
    const upstream = await startFakeUpstream({ reply: 'A long answer streamed in pieces.' });
    const t = await createTestApp({
      config: {
        models: upstream.modelsConfig(),
        channels: { discord: { enabled: true, accounts: { bot1: { app_secret: hub.secret } } } },
      },
      services: { channels: { adapters: [new FakeChannelAdapter('discord', hub)] } },
    });
    try {
      await hub.until(() => hub.live === 1, 'the connection');
      hub.send('bot1', {
        platform: 'discord',
        chatId: 'c1',
        chatType: 'dm',
        senderId: 'u1',
        text: 'hi',
        messageId: 'x1',
      });
      await hub.until(
        () => hub.sent.some((sent) => sent.content === 'A long answer streamed in pieces.'),
        'the answer',
      );
      const inChat = hub.sent.filter((sent) => sent.chatId === 'c1');
      assert.equal(inChat.length, 1, 'one message, edited in place');
      assert.ok((inChat[0]?.edits ?? 0) >= 1);
      assert.equal(inChat[0]?.replyTo, 'x1');
    } finally {
      await t.close();
      await upstream.close();
    }
  });

  it('a group message that does not mention the bot is ignored unless group_require_mention is false', async () => {
    const hub = new FakeChatHub();
    const upstream = await startFakeUpstream({ reply: 'ok' });
    const t = await createTestApp({
      config: {
        models: upstream.modelsConfig(),
        channels: { discord: { enabled: true, accounts: { bot1: { app_secret: hub.secret } } } },
      },
      services: { channels: { adapters: [new FakeChannelAdapter('discord', hub)] } },
    });
    try {
      await hub.until(() => hub.live === 1, 'the connection');
      const group = {
        platform: 'discord' as const,
        chatId: 'g1',
        chatType: 'group' as const,
        senderId: 'u1',
        text: 'chatter',
      };
      hub.send('bot1', { ...group, messageId: 'y1', mentioned: false });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(upstream.requestCount, 0);
      await t.app.inject({
        method: 'PUT',
        url: '/api/v1/channels/discord/accounts/bot1',
        payload: { group_require_mention: false },
      });
      hub.send('bot1', { ...group, messageId: 'y2', mentioned: false });
      await hub.until(() => upstream.requestCount === 1, 'a turn for the unmentioned message');
    } finally {
      await t.close();
      await upstream.close();
    }
  });
});
