// The channel contract against the DingTalk adapter and a fake DingTalk (Stream gateway, WebSocket,
// robot APIs) on loopback.
import { startFakeDingTalk } from '../fakes/fake-dingtalk.ts';
import { channelContract } from './contract.ts';

const CLIENT_ID = 'dingcontractclient';
const SECRET = 'contract-secret-AAAA-0000';

channelContract('dingtalk', async () => {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: SECRET });
  let rotation = 0;
  return {
    platform: 'dingtalk',
    accountFields: () => ({ app_id: CLIENT_ID, app_secret: SECRET, api_base: fake.url }),
    rotateSecret: () => {
      rotation += 1;
      const secret = `rotated-secret-${rotation}-BBBB`;
      fake.setSecret(secret);
      // The platform ends the sessions of a reset secret; reconnecting with the old one fails.
      fake.dropConnections();
      return { app_secret: secret };
    },
    channelOptions: () => ({}),
    userSays: async (message) => {
      fake.pushMessage({
        chatType: message.chatType,
        sender: message.senderId,
        text: message.text,
        msgId: message.messageId,
        ...(message.chatType === 'group' ? { conversationId: message.chatId } : {}),
      });
    },
    botTexts: (chatId) => fake.textsIn(chatId),
    botMedia: (chatId) =>
      fake.sent
        .filter((entry) => entry.chatId === chatId && entry.kind !== 'text')
        .map((entry) => entry.kind as 'image' | 'file'),
    dropConnection: async () => fake.dropConnections(),
    connectAttempts: () => fake.gatewayCalls,
    dmSender: 'user-1',
    chats: { dm: 'user-1', group: 'cidGroup1==' },
    close: () => fake.close(),
  };
});
