// The channel contract against the Discord adapter and a fake Discord (REST API and gateway) on
// loopback.
import { startFakeDiscord } from '../fakes/fake-discord.ts';
import { channelContract } from './contract.ts';

const TOKEN = 'MTAwMDAwMDAwMDAwMDAwMDAx.contract.token-AAAA';
const DM_CHANNEL = '700000000000000001';
const GUILD_CHANNEL = '700000000000000002';
const GUILD = '600000000000000001';
const USERS: Record<string, string> = { 'user-1': '800000000000000001', 'user-2': '800000000000000002' };

channelContract('discord', async () => {
  const fake = await startFakeDiscord({ token: TOKEN });
  let rotation = 0;
  return {
    platform: 'discord',
    accountFields: () => ({ app_secret: TOKEN, app_id: fake.applicationId, api_base: fake.url }),
    rotateSecret: () => {
      rotation += 1;
      const token = `MTAwMDAwMDAwMDAwMDAwMDAx.rotated.token-${rotation}`;
      // A reset token ends the bot's connections; the old one no longer opens a new one.
      fake.setToken(token);
      fake.dropConnections(4004);
      return { app_secret: token };
    },
    channelOptions: () => ({}),
    userSays: async (message) => {
      const mentions = message.text.startsWith('@bot');
      fake.userSays({
        channelId: message.chatType === 'dm' ? DM_CHANNEL : message.chatId,
        ...(message.chatType === 'group' ? { guildId: GUILD } : {}),
        authorId: USERS[message.senderId] ?? '800000000000000009',
        content: mentions ? `<@${fake.botUserId}> ${message.text.slice(4)}` : message.text,
        mentionsBot: mentions,
        id: message.messageId,
      });
    },
    botTexts: (chatId) => fake.textsIn(chatId),
    botMedia: (chatId) =>
      fake.sent
        .filter((sent) => sent.channelId === chatId && sent.files.length > 0)
        .map((sent) => (sent.files[0]?.contentType.startsWith('image/') ? 'image' : 'file')),
    dropConnection: async () => fake.dropConnections(),
    connectAttempts: () => fake.counts.connections,
    dmSender: USERS['user-1'] as string,
    chats: { dm: DM_CHANNEL, group: GUILD_CHANNEL },
    close: () => fake.close(),
  };
});
