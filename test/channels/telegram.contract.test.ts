// The channel contract against the Telegram adapter and a fake Bot API on loopback.
import { startFakeTelegram } from '../fakes/fake-telegram.ts';
import { channelContract } from './contract.ts';

const TOKEN = '123456:contract-token-AAAA';

channelContract('telegram', async () => {
  const tg = await startFakeTelegram({ tokens: [TOKEN] });
  let rotation = 0;
  const texts = (chatId: string) =>
    tg
      .callsOf('sendMessage')
      .filter((call) => String(call.params['chat_id']) === chatId && call.result)
      .map((call) => String(call.params['text']));
  return {
    platform: 'telegram',
    accountFields: () => ({ app_secret: TOKEN, api_base: tg.url }),
    rotateSecret: () => {
      rotation += 1;
      const token = `123456:rotated-token-${rotation}`;
      tg.setTokens([token]);
      return { app_secret: token };
    },
    channelOptions: () => ({ platforms: { telegram: { pollTimeoutSeconds: 1 } } }),
    userSays: async (message) => {
      tg.pushMessage({
        chatId: Number(message.chatType === 'dm' ? 1001 : -2002),
        chatType: message.chatType === 'dm' ? 'private' : 'group',
        fromId: message.senderId === 'user-1' ? 1001 : 3003,
        text: message.text,
        messageId: Number(message.messageId),
      });
    },
    botTexts: texts,
    botMedia: (chatId) => [
      ...tg
        .callsOf('sendPhoto')
        .filter((call) => String(call.params['chat_id']) === chatId && call.result)
        .map(() => 'image' as const),
      ...tg
        .callsOf('sendDocument')
        .filter((call) => String(call.params['chat_id']) === chatId && call.result)
        .map(() => 'file' as const),
    ],
    // Long polling has no connection to drop: the platform failing a poll is the same event.
    dropConnection: async () => tg.failNext('getUpdates', 502, 1),
    connectAttempts: () => tg.callsOf('getUpdates').length,
    dmSender: '1001',
    chats: { dm: '1001', group: '-2002' },
    close: () => tg.close(),
  };
});
