// The channel contract against the WeCom adapter and a fake WeCom on loopback, once per mode.
import assert from 'node:assert/strict';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeWecom } from '../fakes/fake-wecom.ts';
import { channelContract } from './contract.ts';

const BOT_SECRET = 'contract-bot-secret-AAAA';

// Bot mode: the built-in adapter, pointed at the fake through api_base.
channelContract('wecom (bot mode)', async () => {
  const fake = await startFakeWecom({ botSecrets: [BOT_SECRET] });
  let rotation = 0;
  return {
    platform: 'wecom',
    accountFields: () => ({ app_id: fake.botId, app_secret: BOT_SECRET, api_base: fake.url }),
    rotateSecret: () => {
      rotation += 1;
      const secret = `rotated-bot-secret-${rotation}`;
      fake.setBotSecrets([secret]);
      return { app_secret: secret };
    },
    channelOptions: () => ({}),
    // The fake makes a DM's chat its sender, as WeCom does.
    userSays: async (message) => void fake.pushMessage(message),
    botTexts: (chatId) => fake.texts(chatId),
    botMedia: (chatId) => fake.media(chatId),
    dropConnection: async () => fake.dropConnections(),
    connectAttempts: () => fake.connections,
    // A DM's chat is its sender's userid: that is where active pushes to a person go.
    dmSender: 'user-1',
    chats: { dm: 'user-1', group: 'group-1' },
    close: () => fake.close(),
  };
});

channelContract('wecom (app mode)', async () => {
  const fake = await startFakeWecom();
  let app: TestApp | undefined;
  return {
    platform: 'wecom',
    accountFields: () => ({
      mode: 'app',
      app_id: fake.app.corpId,
      agent_id: fake.app.agentId,
      app_secret: fake.app.secret,
      token: fake.app.token,
      encoding_aes_key: fake.app.encodingAesKey,
      api_base: fake.url,
    }),
    rotateSecret: () => {
      fake.setAppSecret('rotated-app-secret');
      return { app_secret: 'rotated-app-secret' };
    },
    channelOptions: () => ({}),
    attach: (running) => {
      app = running;
    },
    // Each user message is a signed, encrypted callback posted to the real webhook route.
    userSays: async (message) => {
      if (!app) throw new Error('the app is not running');
      const callback = fake.callback({
        senderId: message.senderId,
        text: message.text,
        messageId: message.messageId,
      });
      const reply = await app.app.inject({
        method: 'POST',
        url: `/webhooks/wecom/bot1?${new URLSearchParams(callback.query as Record<string, string>).toString()}`,
        headers: { 'content-type': 'text/xml' },
        payload: callback.body,
      });
      // A disabled or deleted account has no webhook (404); every other callback is acknowledged.
      assert.ok(reply.statusCode === 200 || reply.statusCode === 404, reply.body);
    },
    botTexts: (chatId) => fake.texts(chatId),
    botMedia: (chatId) => fake.media(chatId),
    dropConnection: async () => undefined,
    connectAttempts: () => 0,
    dmSender: 'user-1',
    // App chats are people: the "group" of the outbound case is a second user.
    chats: { dm: 'user-1', group: 'user-2' },
    cannot: {
      reconnect: 'an app account receives webhooks: there is no connection to drop',
      'secret-change': 'an app account holds no connection a wrong secret could fail; it shows when sending',
    },
    close: () => fake.close(),
  };
});
