// What only WeCom does, against a fake WeCom on loopback: the smart robot's stream replies, heartbeat,
// reconnects and images on the long connection; the app's signed and encrypted callbacks through
// /webhooks/wecom/{accountId}, its access token and message API; account checks; no secret anywhere.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChannelAccount, ConnectionLink, InboundMessage } from '../../src/channels/types.ts';
import { THINKING } from '../../src/channels/wecom/wecom-bot.ts';
import { WecomAdapter, type WecomOptions } from '../../src/channels/wecom/wecom-adapter.ts';
import { accountSchema } from '../../src/config/schema.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFakeWecom, type FakeWecom, type FakeWecomOptions } from '../fakes/fake-wecom.ts';
import { type ChannelApp, createChannelApp, pause, waitFor } from './channel-app.ts';

const BOT_SECRET = 'bot-SECRET-never-shown-123456';
const APP_SECRET = 'app-SECRET-never-shown-654321';
const REPLY = 'Hello from the agent, streamed into WeCom.';
/** The first bytes of a PNG file, enough for the image check. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

interface Harness extends Omit<ChannelApp, 'logger'> {
  fake: FakeWecom;
  upstream: FakeUpstream;
  state(): string;
  close(): Promise<void>;
}

const botFields = (fake: FakeWecom): Record<string, unknown> => ({
  app_id: fake.botId,
  app_secret: BOT_SECRET,
  api_base: fake.url,
});

const appFields = (fake: FakeWecom): Record<string, unknown> => ({
  mode: 'app',
  app_id: fake.app.corpId,
  agent_id: fake.app.agentId,
  app_secret: APP_SECRET,
  token: fake.app.token,
  encoding_aes_key: fake.app.encodingAesKey,
  api_base: fake.url,
});

let current: Harness | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function start(
  options: {
    mode?: 'bot' | 'app';
    fields?: Record<string, unknown>;
    adapter?: WecomOptions;
    fake?: FakeWecomOptions;
    connected?: boolean;
  } = {},
): Promise<Harness> {
  const fake = await startFakeWecom({
    botSecrets: [BOT_SECRET],
    app: { secret: APP_SECRET },
    ...options.fake,
  });
  const upstream = await startFakeUpstream({ reply: REPLY });
  const { t, handled, logs } = await createChannelApp({
    platform: 'wecom',
    models: upstream.modelsConfig(),
    account: { ...(options.mode === 'app' ? appFields(fake) : botFields(fake)), ...options.fields },
    ...(options.adapter ? { adapter: (logger) => new WecomAdapter({ ...options.adapter, logger }) } : {}),
  });
  const harness: Harness = {
    t,
    fake,
    upstream,
    handled,
    logs,
    state: () => t.services.channels.status('wecom', 'bot1').state,
    async close() {
      await t.close();
      await fake.close();
      await upstream.close();
    },
  };
  current = harness;
  if (options.connected !== false)
    await waitFor(() => harness.state() === 'connected', 'the account to connect');
  return harness;
}

/** Runs the adapter's connect() by hand, as the manager would; returns what it delivers. */
function connectByHand(adapter: WecomAdapter, fake: FakeWecom) {
  const controller = new AbortController();
  const delivered: InboundMessage[] = [];
  let connected = 0;
  const account: ChannelAccount = {
    platform: 'wecom',
    id: 'hand1',
    config: accountSchema.parse({ app_id: fake.botId, app_secret: BOT_SECRET, api_base: fake.url }),
  };
  const link: ConnectionLink = {
    signal: controller.signal,
    deliver: (message) => void delivered.push(message),
    connected: () => void (connected += 1),
  };
  const done = adapter.connect(account, link);
  return { account, delivered, done, controller, connected: () => connected };
}

describe('wecom bot mode (long connection)', () => {
  it('a message is answered with one stream message: a first frame at once, a final frame finishing it', async () => {
    const h = await start();
    const reqId = h.fake.pushMessage({ chatType: 'dm', senderId: 'zhangsan', text: 'hi', messageId: 'm-1' });
    await waitFor(() => h.fake.streamFrames(reqId).some((frame) => frame.finish), 'the final frame');
    const frames = h.fake.streamFrames(reqId);
    assert.deepEqual(frames[0], { id: frames[0]?.id, finish: false, content: THINKING });
    assert.deepEqual(frames.at(-1), { id: frames[0]?.id, finish: true, content: REPLY });
    assert.ok(
      frames.every((frame) => frame.id === frames[0]?.id),
      'one stream id',
    );
    assert.equal(frames.filter((frame) => frame.finish).length, 1, 'only the last frame finishes');
    for (const frame of frames.slice(1))
      assert.ok(REPLY.startsWith(frame.content), `accumulated: ${frame.content}`);
    assert.deepEqual(h.fake.texts('zhangsan'), [REPLY]);
    await waitFor(() => h.handled.length === 1, 'the turn to end');
    assert.equal(h.handled[0]?.message.replyContext?.['req_id'], reqId);
    assert.equal(h.handled[0]?.outcome, 'replied');
  });

  it('beginReply sends the first frame at once, each update with the content so far, then finish=true', async () => {
    const fake = await startFakeWecom({ botSecrets: [BOT_SECRET] });
    const adapter = new WecomAdapter();
    const run = connectByHand(adapter, fake);
    try {
      await waitFor(() => run.connected() === 1, 'the connection');
      const reqId = fake.pushMessage({
        chatType: 'group',
        chatId: 'g-1',
        senderId: 'lisi',
        text: '@Bot 你好',
        messageId: 'm-2',
      });
      await waitFor(() => run.delivered.length === 1, 'the message');
      const message = run.delivered[0] as InboundMessage;
      assert.equal(message.text, '你好', 'the leading mention is taken off');
      assert.equal(message.chatId, 'g-1');
      assert.equal(message.chatType, 'group');
      assert.equal(message.mentioned, true);
      const stream = await adapter.beginReply(run.account, message, run.controller.signal);
      assert.ok(stream, 'bot mode streams its reply');
      assert.deepEqual(fake.streamFrames(reqId), [
        { id: fake.streamFrames(reqId)[0]?.id, finish: false, content: THINKING },
      ]);
      await stream.update('Hel');
      await stream.update('Hello');
      await stream.finish('Hello world');
      assert.deepEqual(
        fake.streamFrames(reqId).map(({ finish, content }) => [finish, content]),
        [
          [false, THINKING],
          [false, 'Hel'],
          [false, 'Hello'],
          [true, 'Hello world'],
        ],
      );
      assert.deepEqual(fake.texts('g-1'), ['Hello world']);
    } finally {
      run.controller.abort();
      await run.done;
      await fake.close();
    }
  });

  it('an answer longer than one stream frame finishes the stream and pushes the rest to the chat', async () => {
    const fake = await startFakeWecom({ botSecrets: [BOT_SECRET] });
    const adapter = new WecomAdapter();
    const run = connectByHand(adapter, fake);
    try {
      await waitFor(() => run.connected() === 1, 'the connection');
      const reqId = fake.pushMessage({
        chatType: 'dm',
        senderId: 'wangwu',
        text: 'long please',
        messageId: 'm-3',
      });
      await waitFor(() => run.delivered.length === 1, 'the message');
      const stream = await adapter.beginReply(
        run.account,
        run.delivered[0] as InboundMessage,
        run.controller.signal,
      );
      assert.ok(stream, 'bot mode streams its reply');
      const long = '长'.repeat(10_000); // 30000 bytes
      await stream.finish(long);
      const final = fake.streamFrames(reqId).at(-1);
      assert.equal(final?.finish, true);
      assert.ok(Buffer.byteLength(final?.content ?? '') <= 20480);
      assert.equal(fake.texts('wangwu').join(''), long);
      assert.ok(fake.texts('wangwu').length >= 3, 'the rest arrives as active pushes');
    } finally {
      run.controller.abort();
      await run.done;
      await fake.close();
    }
  });

  it('a stream that cannot be finished (its connection is gone) still delivers the answer as a message', async () => {
    const fake = await startFakeWecom({ botSecrets: [BOT_SECRET] });
    const adapter = new WecomAdapter();
    let run = connectByHand(adapter, fake);
    try {
      await waitFor(() => run.connected() === 1, 'the connection');
      fake.pushMessage({ chatType: 'dm', senderId: 'zhaoliu', text: 'hi', messageId: 'm-4' });
      await waitFor(() => run.delivered.length === 1, 'the message');
      const message = run.delivered[0] as InboundMessage;
      const stream = await adapter.beginReply(run.account, message, new AbortController().signal);
      assert.ok(stream, 'bot mode streams its reply');
      fake.dropConnections();
      await run.done;
      run = connectByHand(adapter, fake);
      await waitFor(() => run.connected() === 1, 'the new connection');
      // The req_id belongs to the old connection: the new one refuses the final frame.
      await stream.finish('the late answer');
      assert.deepEqual(fake.texts('zhaoliu'), [THINKING, 'the late answer']);
    } finally {
      run.controller.abort();
      await run.done;
      await fake.close();
    }
  });

  it('heartbeat: pings go out on the interval, are answered, and the connection stays up', async () => {
    const h = await start({ adapter: { heartbeatIntervalMs: 30 } });
    await pause(400);
    const pings = h.fake.frames.filter((frame) => frame.cmd === 'ping');
    assert.ok(pings.length >= 5, `saw ${pings.length} pings`);
    assert.ok(pings.every((frame) => frame.headers.req_id.startsWith('ping')));
    assert.equal(h.fake.connections, 1);
    assert.equal(h.state(), 'connected');
  });

  it('unanswered pings close the connection, and it comes back and answers', async () => {
    const h = await start({ adapter: { heartbeatIntervalMs: 30 } });
    h.fake.answerPings = false;
    await waitFor(() => h.fake.connections >= 2, 'a reconnect after missed pings');
    h.fake.answerPings = true;
    await waitFor(() => h.state() === 'connected' && h.fake.live === 1, 'connected again');
    const reqId = h.fake.pushMessage({
      chatType: 'dm',
      senderId: 'u9',
      text: 'still there?',
      messageId: 'm-5',
    });
    await waitFor(() => h.fake.streamFrames(reqId).some((frame) => frame.finish), 'the answer');
  });

  it('reconnects after the platform drops the socket, and answers on the new connection', async () => {
    const h = await start();
    h.fake.dropConnections();
    await waitFor(() => h.fake.connections === 2 && h.fake.live === 1, 'the second connection');
    await waitFor(() => h.state() === 'connected', 'connected again');
    const reqId = h.fake.pushMessage({ chatType: 'dm', senderId: 'u1', text: 'back?', messageId: 'm-6' });
    await waitFor(() => h.fake.streamFrames(reqId).some((frame) => frame.finish), 'the answer');
    const second = h.fake.frames
      .filter((frame) => frame.cmd === 'aibot_respond_msg')
      .map((frame) => frame.connection);
    assert.ok(second.every((connection) => connection === 2));
  });

  it('a message delivered twice starts one turn and one reply', async () => {
    const h = await start();
    const first = h.fake.pushMessage({ chatType: 'dm', senderId: 'u1', text: 'once', messageId: 'dup-1' });
    const again = h.fake.pushMessage({ chatType: 'dm', senderId: 'u1', text: 'once', messageId: 'dup-1' });
    await waitFor(() => h.fake.streamFrames(first).some((frame) => frame.finish), 'the answer');
    await pause(200);
    assert.equal(h.upstream.requestCount, 1);
    assert.deepEqual(h.fake.streamFrames(again), []);
    assert.equal(h.handled.length, 1);
  });

  it('images users send are downloaded, decrypted and put on the message as data: URLs', async () => {
    const h = await start();
    h.fake.pushMessage({
      chatType: 'dm',
      senderId: 'u1',
      text: 'what is this?',
      images: [PNG],
      messageId: 'img-1',
    });
    h.fake.pushMessage({ chatType: 'dm', senderId: 'u1', images: [PNG, PNG], messageId: 'img-2' });
    await waitFor(() => h.handled.length === 2, 'both messages');
    const mixed = h.handled.find(({ message }) => message.messageId === 'img-1')?.message;
    assert.equal(mixed?.text, 'what is this?');
    assert.deepEqual(mixed?.images, [{ url: `data:image/png;base64,${PNG.toString('base64')}` }]);
    const only = h.handled.find(({ message }) => message.messageId === 'img-2')?.message;
    assert.equal(only?.images?.length, 2);
  });

  it('an image over the size cap is dropped; the text still gets its turn', async () => {
    const h = await start({ adapter: { maxImageBytes: 10 } });
    h.fake.pushMessage({
      chatType: 'dm',
      senderId: 'u1',
      text: 'big one',
      images: [PNG],
      messageId: 'img-3',
    });
    await waitFor(() => h.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.message.images, undefined);
    assert.equal(h.handled[0]?.outcome, 'replied');
    assert.ok(h.logs.some((line) => line.startsWith('wecom image skipped') && line.includes('larger than')));
  });

  it('a wrong secret shows an error state; neither the state nor any log line holds the secret', async () => {
    const h = await start({ fields: { app_secret: `${BOT_SECRET}-wrong` }, connected: false });
    await waitFor(() => h.state() === 'error' && h.fake.connections >= 2, 'repeated auth failures');
    const status = h.t.services.channels.status('wecom', 'bot1');
    assert.match(status.error ?? '', /invalid bot_id or secret/);
    const everything = JSON.stringify(status) + h.logs.join('\n');
    assert.doesNotMatch(everything, new RegExp(BOT_SECRET));
  });

  it('a bot replaced by another connection shows why and does not fight back at once', async () => {
    const h = await start();
    h.fake.replaceConnections();
    await waitFor(() => h.state() === 'error', 'the error state');
    assert.match(h.t.services.channels.status('wecom', 'bot1').error ?? '', /another connection/);
    await pause(300);
    assert.equal(h.fake.connections, 1);
  });

  it('sending while the account is not connected is a 503', async () => {
    const h = await start({ fields: { app_secret: 'not-the-secret' }, connected: false });
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/send',
      payload: { chatId: 'u1', message: 'hello', accountId: 'bot1' },
    });
    assert.equal(response.statusCode, 503);
    assert.match(response.json().error, /not connected/);
  });
});

describe('wecom app mode (callback webhook)', () => {
  const post = (h: Harness, callback: { query: Record<string, string>; body: string }) =>
    h.t.app.inject({
      method: 'POST',
      url: `/webhooks/wecom/bot1?${new URLSearchParams(callback.query).toString()}`,
      headers: { 'content-type': 'text/xml' },
      payload: callback.body,
    });

  it('URL verification: a signed echostr is decrypted and answered in plain text', async () => {
    const h = await start({ mode: 'app' });
    const query = h.fake.urlVerification('echo-1234567890');
    const response = await h.t.app.inject({
      method: 'GET',
      url: `/webhooks/wecom/bot1?${new URLSearchParams(query).toString()}`,
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'echo-1234567890');
    assert.match(String(response.headers['content-type']), /^text\/plain/);
  });

  it('URL verification survives a "+" of the echostr decoded to a space', async () => {
    const h = await start({ mode: 'app' });
    let query = h.fake.urlVerification('plus-check');
    while (!query['echostr']?.includes('+')) query = h.fake.urlVerification('plus-check');
    // The "+" is left unescaped, so the query parser turns it into a space.
    const raw = Object.entries(query)
      .map(
        ([name, value]) =>
          `${name}=${name === 'echostr' ? value.replace(/[/=]/g, encodeURIComponent) : value}`,
      )
      .join('&');
    const response = await h.t.app.inject({ method: 'GET', url: `/webhooks/wecom/bot1?${raw}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'plus-check');
  });

  it('a wrong signature is a 401, on the URL check and on a message, and starts no turn', async () => {
    const h = await start({ mode: 'app' });
    const query = { ...h.fake.urlVerification('x'), msg_signature: '0'.repeat(40) };
    const check = await h.t.app.inject({
      method: 'GET',
      url: `/webhooks/wecom/bot1?${new URLSearchParams(query).toString()}`,
    });
    assert.equal(check.statusCode, 401);
    const callback = h.fake.callback({ senderId: 'u1', text: 'hi', messageId: '9001' });
    const forged = await post(h, {
      ...callback,
      query: { ...callback.query, msg_signature: 'f'.repeat(40) },
    });
    assert.equal(forged.statusCode, 401);
    assert.match(forged.json().error, /signature/);
    const unsigned = await post(h, { ...callback, query: {} });
    assert.equal(unsigned.statusCode, 401);
    await pause(200);
    assert.equal(h.upstream.requestCount, 0);
    assert.equal(h.handled.length, 0);
    assert.equal(h.fake.calls.length, 0);
  });

  it('a callback encrypted with another key, or for another corp, is a 401 and starts no turn', async () => {
    const h = await start({ mode: 'app' });
    const otherKey = await startFakeWecom({ app: { token: h.fake.app.token, corpId: h.fake.app.corpId } });
    const otherCorp = await startFakeWecom({
      app: { token: h.fake.app.token, corpId: 'ww-other-corp', encodingAesKey: h.fake.app.encodingAesKey },
    });
    try {
      for (const fake of [otherKey, otherCorp]) {
        const response = await post(h, fake.callback({ senderId: 'u1', text: 'hi', messageId: '9002' }));
        assert.equal(response.statusCode, 401);
      }
      await pause(200);
      assert.equal(h.handled.length, 0);
    } finally {
      await otherKey.close();
      await otherCorp.close();
    }
  });

  it('a message is answered at once with an empty 200, then replied through message/send', async () => {
    const h = await start({ mode: 'app' });
    const response = await post(
      h,
      h.fake.callback({ senderId: 'zhangsan', text: 'hello app', messageId: '7001' }),
    );
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, '');
    await waitFor(() => h.fake.texts('zhangsan').includes(REPLY), 'the reply');
    const sent = h.fake.calls.find((call) => call.path === '/cgi-bin/message/send');
    assert.deepEqual(sent?.body, {
      touser: 'zhangsan',
      agentid: Number(h.fake.app.agentId),
      msgtype: 'text',
      text: { content: REPLY },
    });
    await waitFor(() => h.handled.length === 1, 'the turn to end');
    assert.equal(h.handled[0]?.message.text, 'hello app');
    assert.equal(h.handled[0]?.message.chatType, 'dm');
  });

  it('text with XML-special characters arrives intact', async () => {
    const h = await start({ mode: 'app' });
    const text = 'a ]]> b <c/> & "d" 企业';
    assert.equal(
      (await post(h, h.fake.callback({ senderId: 'u1', text, messageId: '7010' }))).statusCode,
      200,
    );
    await waitFor(() => h.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.message.text, text);
  });

  it('the same callback posted twice starts one turn', async () => {
    const h = await start({ mode: 'app' });
    const callback = h.fake.callback({ senderId: 'u1', text: 'once', messageId: '7002' });
    assert.equal((await post(h, callback)).statusCode, 200);
    assert.equal((await post(h, callback)).statusCode, 200);
    await waitFor(() => h.fake.texts('u1').includes(REPLY), 'the reply');
    await pause(200);
    assert.equal(h.upstream.requestCount, 1);
    assert.equal(h.fake.texts('u1').length, 1);
  });

  it('events and messages for another app start no turn', async () => {
    const h = await start({ mode: 'app' });
    assert.equal(
      (await post(h, h.fake.callback({ senderId: 'u1', messageId: 'e', msgType: 'event' }))).statusCode,
      200,
    );
    const other = h.fake.callback({ senderId: 'u1', text: 'hi', messageId: '7003', agentId: '999' });
    assert.equal((await post(h, other)).statusCode, 200);
    await pause(200);
    assert.equal(h.handled.length, 0);
  });

  it('an image the user sends is fetched with media/get and reaches the turn as a data: URL', async () => {
    const h = await start({ mode: 'app' });
    const mediaId = h.fake.addMedia(PNG);
    await post(h, h.fake.callback({ senderId: 'u1', messageId: '7004', msgType: 'image', mediaId }));
    await waitFor(() => h.handled.length === 1, 'the message');
    assert.deepEqual(h.handled[0]?.message.images, [
      { url: `data:image/png;base64,${PNG.toString('base64')}` },
    ]);
    const get = h.fake.calls.find((call) => call.path === '/cgi-bin/media/get');
    assert.equal(get?.query['media_id'], mediaId);
  });

  it('the access token is fetched once, cached, and fetched again when WeCom calls it expired', async () => {
    const h = await start({ mode: 'app' });
    const send = (message: string) =>
      h.t.app.inject({
        method: 'POST',
        url: '/api/v1/channels/wecom/send',
        payload: { chatId: 'u1', message, accountId: 'bot1' },
      });
    assert.equal((await send('one')).statusCode, 200);
    assert.equal((await send('two')).statusCode, 200);
    const tokenCalls = () => h.fake.calls.filter((call) => call.path === '/cgi-bin/gettoken').length;
    assert.equal(tokenCalls(), 1);
    h.fake.expireTokens();
    assert.equal((await send('three')).statusCode, 200);
    assert.equal(tokenCalls(), 2);
    assert.deepEqual(h.fake.texts('u1'), ['one', 'two', 'three']);
    const sends = h.fake.calls.filter((call) => call.path === '/cgi-bin/message/send');
    assert.deepEqual(
      sends.map((call) => call.errcode),
      [0, 0, 42001, 0],
    );
  });

  it('a long text is split by UTF-8 bytes into messages of at most 2048 bytes', async () => {
    const h = await start({ mode: 'app' });
    const long = '企业微信'.repeat(600); // 7200 bytes
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/send',
      payload: { chatId: 'u1', message: long, accountId: 'bot1' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const pieces = h.fake.texts('u1');
    assert.equal(pieces.length, 4);
    assert.ok(pieces.every((piece) => Buffer.byteLength(piece) <= 2048));
    assert.equal(pieces.join(''), long);
  });

  it('send-image uploads the file with media/upload and sends its media_id', async () => {
    const h = await start({ mode: 'app' });
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await writeFile(join(await h.t.services.workspace('main'), 'chart.png'), PNG);
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/send-image',
      payload: { chatId: 'u1', imagePath: 'main:chart.png', accountId: 'bot1' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const upload = h.fake.calls.find((call) => call.path === '/cgi-bin/media/upload');
    assert.equal(upload?.query['type'], 'image');
    assert.deepEqual(upload?.files['media']?.bytes, PNG);
    const sent = h.fake.calls.find((call) => call.path === '/cgi-bin/message/send');
    assert.equal(sent?.body['msgtype'], 'image');
    assert.deepEqual(h.fake.media('u1'), ['image']);
  });

  it('a failing app API is a 502 whose error carries neither the secret nor the access token', async () => {
    const h = await start({ mode: 'app', fields: { app_secret: 'wrong-APP-secret-xyz' } });
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/send',
      payload: { chatId: 'u1', message: 'hello', accountId: 'bot1' },
    });
    assert.equal(response.statusCode, 502);
    assert.match(response.json().error, /gettoken failed \(status \d+, code 40001\)/);
    assert.doesNotMatch(response.body, /wrong-APP-secret-xyz/);
    h.fake.setAppSecret('wrong-APP-secret-xyz');
    h.fake.failNext('/cgi-bin/message/send', 45009, 'api freq out of limit');
    const limited = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/send',
      payload: { chatId: 'u1', message: 'hello', accountId: 'bot1' },
    });
    assert.equal(limited.statusCode, 502);
    assert.match(limited.json().error, /message\/send failed \(status \d+, code 45009\)/);
    assert.doesNotMatch(limited.body, /access-token-\d+/);
    assert.doesNotMatch(limited.body, /wrong-APP-secret-xyz/);
    assert.doesNotMatch(h.logs.join('\n'), /wrong-APP-secret-xyz|access-token-\d+/);
  });
});

describe('wecom accounts', () => {
  const create = (t: TestApp, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/wecom/accounts',
      payload: { id: 'acct', ...body },
    });

  it("a bot account needs app_id and app_secret; an app account its five fields; other platforms' fields are refused", async () => {
    const t = await createTestApp({ config: { channels: { wecom: { enabled: true } } } });
    try {
      const bot = await create(t, { name: 'bot' });
      assert.equal(bot.statusCode, 400);
      assert.match(
        bot.json().error,
        /app_id: the bot id is required; app_secret: the bot secret is required/,
      );
      const app = await create(t, { mode: 'app', app_id: 'ww1', agent_id: 'abc', encoding_aes_key: 'short' });
      assert.equal(app.statusCode, 400);
      const error = app.json().error as string;
      for (const expected of [
        /app_secret: the app's Secret is required/,
        /token: the callback's Token is required/,
        /agent_id: must be the app's numeric AgentId/,
        /encoding_aes_key: must be the 43-character/,
      ]) {
        assert.match(error, expected);
      }
      const foreign = await create(t, {
        app_id: 'b',
        app_secret: 's',
        verification_token: 'v',
        signing_secret: 'x',
      });
      assert.equal(foreign.statusCode, 400);
      assert.match(
        foreign.json().error,
        /verification_token: not used by wecom; signing_secret: not used by wecom/,
      );
      const fine = await create(t, { app_id: 'b', app_secret: 'SECRET-in-body-0000', enabled: false });
      assert.equal(fine.statusCode, 201, fine.body);
      assert.doesNotMatch(fine.body, /SECRET-in-body-0000/);
    } finally {
      await t.close();
    }
  });
});
