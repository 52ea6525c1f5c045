// Pictures reach vision models: image_url parts of a chat request, and images users send on a
// channel, are passed on to the provider as image_url parts of the user message.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { FakeChannelAdapter, FakeChatHub } from '../fakes/fake-channel.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function userParts(upstream: FakeUpstream): unknown {
  const messages = (upstream.requests.at(-1)?.['messages'] ?? []) as Array<{
    role: string;
    content: unknown;
  }>;
  return messages.filter((message) => message.role === 'user').at(-1)?.content;
}

describe('images for vision models', () => {
  let t: TestApp | undefined;
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    await t?.close();
    await upstream?.close();
    t = undefined;
  });

  it('image_url parts of a chat request reach the provider with the text', async () => {
    upstream = await startFakeUpstream({ reply: 'A red dot.' });
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: {
        model: 'main',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: PIXEL } },
            ],
          },
        ],
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(userParts(upstream), [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: PIXEL } },
    ]);
  });

  it('a picture a channel user sends reaches the provider, even without text', async () => {
    upstream = await startFakeUpstream({ reply: 'Nice picture.' });
    const hub = new FakeChatHub();
    t = await createTestApp({
      config: {
        models: upstream.modelsConfig(),
        channels: { discord: { enabled: true, accounts: { bot1: { app_secret: hub.secret } } } },
      },
      services: { channels: { adapters: [new FakeChannelAdapter('discord', hub)] } },
    });
    await hub.until(() => hub.live === 1, 'the connection');
    hub.send('bot1', {
      platform: 'discord',
      chatId: 'c1',
      chatType: 'dm',
      senderId: 'u1',
      text: '',
      messageId: 'p1',
      images: [{ url: PIXEL }],
    });
    await hub.until(() => hub.sent.some((sent) => sent.content === 'Nice picture.'), 'the answer');
    assert.deepEqual(userParts(upstream), [{ type: 'image_url', image_url: { url: PIXEL } }]);
  });
});
