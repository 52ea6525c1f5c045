// The channel contract against the Feishu long-connection adapter (the official SDK's WSClient)
// and a fake Feishu on loopback that speaks the SDK's protobuf frames.
import assert from 'node:assert/strict';
import { FeishuAdapter } from '../../src/channels/feishu/feishu-adapter.ts';
import type { TestApp } from '../fakes/app-harness.ts';
import { encryptEvent, signedHeaders, startFakeFeishu } from '../fakes/fake-feishu.ts';
import { channelContract } from './contract.ts';

const SECRET = 'contract-app-secret-AAAA';

channelContract('feishu', async () => {
  const feishu = await startFakeFeishu({ appSecret: SECRET });
  let rotation = 0;
  const openIdOf = (senderId: string): string => `ou_${senderId.replaceAll('-', '')}`;
  return {
    platform: 'feishu',
    accountFields: () => ({ app_id: feishu.appId, app_secret: SECRET, api_base: feishu.url }),
    rotateSecret: () => {
      rotation += 1;
      const secret = `rotated-app-secret-${rotation}`;
      feishu.setSecret(secret);
      return { app_secret: secret };
    },
    channelOptions: () => ({ adapters: [new FeishuAdapter({ connectionCheckMs: 50 })] }),
    userSays: async (message) => {
      feishu.userSays({
        chatId: message.chatType === 'dm' ? 'oc_dm1' : 'oc_group1',
        chatType: message.chatType === 'dm' ? 'p2p' : 'group',
        senderOpenId: openIdOf(message.senderId),
        text: message.text,
        messageId: `om_${message.messageId}`,
        // A redelivery repeats the event itself.
        eventId: `ev_${message.messageId}`,
      });
    },
    botTexts: (chatId) => feishu.textsIn(chatId),
    botMedia: (chatId) =>
      feishu.sent
        .filter((message) => message.chatId === chatId && ['image', 'file'].includes(message.msgType))
        .map((message) => message.msgType as 'image' | 'file'),
    dropConnection: async () => feishu.dropConnections(),
    connectAttempts: () => feishu.connects,
    dmSender: openIdOf('user-1'),
    chats: { dm: 'oc_dm1', group: 'oc_group1' },
    close: () => feishu.close(),
  };
});

const VERIFICATION = 'contract-verification-token';
const ENCRYPT_KEY = 'contract-encrypt-key-0001';

// The webhook variant: each user message is an encrypted, signed event posted to the real route.
channelContract('feishu_webhook', async () => {
  const feishu = await startFakeFeishu({ appSecret: SECRET, verificationToken: VERIFICATION });
  let app: TestApp | undefined;
  const openIdOf = (senderId: string): string => `ou_${senderId.replaceAll('-', '')}`;
  return {
    platform: 'feishu_webhook',
    accountFields: () => ({
      app_id: feishu.appId,
      app_secret: SECRET,
      api_base: feishu.url,
      verification_token: VERIFICATION,
      encrypt_key: ENCRYPT_KEY,
    }),
    rotateSecret: () => ({ app_secret: SECRET }),
    channelOptions: () => ({}),
    attach: (running) => {
      app = running;
    },
    userSays: async (message) => {
      if (!app) throw new Error('the app is not running');
      const event = feishu.messageEvent({
        chatId: message.chatType === 'dm' ? 'oc_dm1' : 'oc_group1',
        chatType: message.chatType === 'dm' ? 'p2p' : 'group',
        senderOpenId: openIdOf(message.senderId),
        text: message.text,
        messageId: `om_${message.messageId}`,
        eventId: `ev_${message.messageId}`,
      });
      const body = encryptEvent(JSON.stringify(event), ENCRYPT_KEY);
      const response = await app.app.inject({
        method: 'POST',
        url: '/webhooks/feishu_webhook/bot1',
        headers: signedHeaders(body, ENCRYPT_KEY),
        payload: body,
      });
      // A disabled or deleted account has no webhook (404); every other event is acknowledged.
      assert.ok(response.statusCode === 200 || response.statusCode === 404, response.body);
    },
    botTexts: (chatId) => feishu.textsIn(chatId),
    botMedia: (chatId) =>
      feishu.sent
        .filter((message) => message.chatId === chatId && ['image', 'file'].includes(message.msgType))
        .map((message) => message.msgType as 'image' | 'file'),
    dropConnection: async () => undefined,
    connectAttempts: () => 0,
    dmSender: openIdOf('user-1'),
    chats: { dm: 'oc_dm1', group: 'oc_group1' },
    cannot: {
      reconnect: 'a webhook account holds no connection for the platform to drop',
      'secret-change':
        'a webhook account holds no connection a wrong secret could fail; it shows when sending',
    },
    close: () => feishu.close(),
  };
});
