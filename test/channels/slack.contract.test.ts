// The channel contract against the Slack adapter and a fake Slack on loopback, once per mode:
// Socket Mode through @slack/bolt (the fake's WebSocket), and the Events API through the real
// webhook route with signed requests.
import assert from 'node:assert/strict';
import { slackSignature } from '../../src/channels/slack/events-api.ts';
import type { TestApp } from '../fakes/app-harness.ts';
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from '../fakes/fake-slack.ts';
import { channelContract, type UserMessage } from './contract.ts';

const BOT_TOKEN = 'xoxb-contract-bot-token-AAAA';
const APP_TOKEN = 'xapp-contract-app-token-AAAA';
const SIGNING_SECRET = 'contract-signing-secret-0001';
const chats = { dm: 'D0DM1', group: 'C0GROUP1' };

const userIdOf = (senderId: string): string => `U${senderId.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}`;

/** The event a contract message makes: a DM, or a mention in a channel. */
function eventOf(slack: FakeSlack, message: UserMessage): Record<string, unknown> {
  const group = message.chatType === 'group';
  return slack.messageEvent({
    channel: group ? chats.group : chats.dm,
    user: userIdOf(message.senderId),
    text: group ? `<@${BOT_USER_ID}> ${message.text.replace(/^@bot\s*/, '')}` : message.text,
    // The same message id makes the same ts: a redelivery.
    ts: `1710000000.${message.messageId.padStart(6, '0')}`,
    mention: group,
  });
}

const common = (slack: FakeSlack) => ({
  platform: 'slack' as const,
  botTexts: (chatId: string) => slack.textsIn(chatId),
  botMedia: (chatId: string) => slack.mediaIn(chatId),
  dmSender: userIdOf('user-1'),
  chats,
  close: () => slack.close(),
});

channelContract('slack (socket mode)', async () => {
  const slack = await startFakeSlack({ botTokens: [BOT_TOKEN], appTokens: [APP_TOKEN] });
  let rotation = 0;
  return {
    ...common(slack),
    accountFields: () => ({ app_secret: BOT_TOKEN, app_token: APP_TOKEN, api_base: slack.url }),
    rotateSecret: () => {
      rotation += 1;
      const token = `xoxb-rotated-bot-token-${rotation}`;
      slack.setBotTokens([token]);
      return { app_secret: token };
    },
    channelOptions: () => ({}),
    userSays: async (message) => {
      const envelope = slack.pushEvent(eventOf(slack, message));
      // An open connection acknowledges every envelope; with none, nothing was delivered.
      if (slack.connections > 0) await slack.waitForAck(envelope, 2000).catch(() => undefined);
    },
    dropConnection: async () => slack.dropConnections(),
    connectAttempts: () => slack.connections,
  };
});

channelContract('slack (events api)', async () => {
  const slack = await startFakeSlack({ botTokens: [BOT_TOKEN] });
  let app: TestApp | undefined;
  return {
    ...common(slack),
    accountFields: () => ({ app_secret: BOT_TOKEN, signing_secret: SIGNING_SECRET, api_base: slack.url }),
    rotateSecret: () => ({ app_secret: BOT_TOKEN }),
    channelOptions: () => ({}),
    attach: (running) => {
      app = running;
    },
    userSays: async (message) => {
      if (!app) throw new Error('the app is not running');
      const body = slack.callbackBody(eventOf(slack, message));
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await app.app.inject({
        method: 'POST',
        url: '/webhooks/slack/bot1',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, body),
        },
        payload: body,
      });
      // A disabled or deleted account has no webhook (404); every other event is acknowledged.
      assert.ok(response.statusCode === 200 || response.statusCode === 404, response.body);
    },
    dropConnection: async () => undefined,
    connectAttempts: () => 0,
    cannot: {
      reconnect: 'an Events API account receives webhooks: there is no connection to drop',
      'secret-change':
        'an Events API account holds no connection a wrong token could fail; it shows when sending',
    },
  };
});
