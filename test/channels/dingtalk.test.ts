// The DingTalk adapter end to end against a fake DingTalk on loopback: replies through the
// sessionWebhook or the robot send API, AI card streaming, pictures to data: URLs, outbound media,
// the stream protocol (ACKs, ping, disconnect, redelivery, restarts) and secrets kept out of logs.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { DingTalkAdapter, type DingTalkOptions } from '../../src/channels/dingtalk/dingtalk-adapter.ts';
import type { ChannelAccount, InboundMessage } from '../../src/channels/types.ts';
import { accountSchema } from '../../src/config/schema.ts';
import { startFakeDingTalk, type FakeDingTalk } from '../fakes/fake-dingtalk.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { type ChannelApp, createChannelApp } from './channel-app.ts';

const CLIENT_ID = 'dingtestclient01';
const SECRET = 'SECRET-dingtalk-abcdefghijklmnop';
const REPLY = 'Hello from the agent.';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

interface Harness extends Omit<ChannelApp, 'logger'> {
  fake: FakeDingTalk;
  upstream: FakeUpstream;
  close(): Promise<void>;
}

async function start(
  options: {
    account?: Record<string, unknown>;
    reply?: string;
    fake?: Partial<Parameters<typeof startFakeDingTalk>[0]>;
    adapter?: Omit<DingTalkOptions, 'logger'>;
    prepare?: (fake: FakeDingTalk) => void;
  } = {},
): Promise<Harness> {
  const upstream = await startFakeUpstream({ reply: options.reply ?? REPLY });
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: SECRET, ...options.fake });
  options.prepare?.(fake);
  const { t, handled, logs } = await createChannelApp({
    platform: 'dingtalk',
    models: upstream.modelsConfig(),
    account: { app_id: CLIENT_ID, app_secret: SECRET, api_base: fake.url, ...options.account },
    ...(options.adapter ? { adapter: (logger) => new DingTalkAdapter({ ...options.adapter, logger }) } : {}),
  });
  return {
    t,
    fake,
    upstream,
    handled,
    logs,
    async close() {
      await t.close();
      await fake.close();
      await upstream.close();
    },
  };
}

async function connected(h: Harness): Promise<void> {
  await h.fake.until(() => h.fake.liveConnections === 1, 'the stream connection');
}

async function status(h: Harness): Promise<{ state: string; error?: string }> {
  const view = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/dingtalk/accounts/bot1' });
  return view.json().status;
}

describe('dingtalk replies', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('a DM is answered through its sessionWebhook, and the callback is acknowledged', async () => {
    h = await start();
    await connected(h);
    const frameId = h.fake.pushMessage({
      chatType: 'dm',
      sender: 'staff-42',
      text: 'What is up?',
      msgId: 'msgA',
    });
    await h.fake.until(() => h.handled.length === 1, 'the answer');
    assert.deepEqual(
      h.fake.sent.map(({ chatId, via, content, kind }) => ({ chatId, via, content, kind })),
      [{ chatId: 'staff-42', via: 'webhook', content: REPLY, kind: 'text' }],
    );
    assert.equal(h.fake.callsTo('/robot/sendBySession')[0]?.body['msgtype'], 'markdown');
    assert.equal(h.fake.callsTo('/v1.0/robot/oToMessages/batchSend').length, 0);
    assert.deepEqual(
      h.fake.acks.find((ack) => ack.messageId === frameId),
      {
        messageId: frameId,
        code: 200,
        message: 'OK',
        data: '{"response":null}',
      },
    );
    assert.deepEqual(h.fake.badAcks, []);
    assert.match(JSON.stringify(h.upstream.requests[0]), /What is up\?/);
    const message = h.handled[0]?.message;
    assert.equal(message?.chatType, 'dm');
    assert.equal(message?.senderId, 'staff-42');
    assert.equal(message?.messageId, 'msgA');
    assert.match(message?.replyContext?.['sessionWebhook'] ?? '', /\/robot\/sendBySession\?session=/);
  });

  it('a group message mentions the bot and is answered in the group through its sessionWebhook', async () => {
    h = await start();
    await connected(h);
    h.fake.pushMessage({
      chatType: 'group',
      sender: 'staff-7',
      text: 'status?',
      conversationId: 'cidTeam==',
    });
    await h.fake.until(() => h.handled.length === 1, 'the answer');
    assert.equal(h.fake.sent[0]?.chatId, 'cidTeam==');
    assert.equal(h.fake.sent[0]?.via, 'webhook');
    const message = h.handled[0]?.message;
    assert.equal(message?.chatType, 'group');
    assert.equal(message?.chatId, 'cidTeam==');
    assert.equal(message?.mentioned, true);
    assert.equal(message?.text, 'status?', 'the space left by the @mention is trimmed');
  });

  it('once the sessionWebhook expired, DM and group answers go through the robot send API', async () => {
    h = await start();
    await connected(h);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'late', webhookTtlMs: -1000 });
    // Within the last minute of its life a webhook is not used either.
    h.fake.pushMessage({
      chatType: 'group',
      sender: 'staff-2',
      text: 'late',
      conversationId: 'cidG==',
      webhookTtlMs: 30_000,
    });
    await h.fake.until(() => h.fake.sent.length === 2, 'both answers');
    assert.deepEqual(
      h.fake.sent.map((entry) => entry.via),
      ['api', 'api'],
    );
    assert.equal(h.fake.callsTo('/robot/sendBySession').length, 0);
    const oto = h.fake.callsTo('/v1.0/robot/oToMessages/batchSend')[0];
    assert.deepEqual(oto?.body['userIds'], ['staff-1']);
    assert.equal(oto?.body['msgKey'], 'sampleMarkdown');
    assert.equal(oto?.body['robotCode'], CLIENT_ID);
    assert.deepEqual(JSON.parse(String(oto?.body['msgParam'])), { title: REPLY, text: REPLY });
    assert.match(oto?.token ?? '', /^token-/);
    const group = h.fake.callsTo('/v1.0/robot/groupMessages/send')[0];
    assert.equal(group?.body['openConversationId'], 'cidG==');
    // One access token served both calls.
    assert.equal(h.fake.callsTo('/v1.0/oauth2/accessToken').length, 1);
  });

  it('a sessionWebhook the platform refuses falls back to the API; one on another origin is never called', async () => {
    h = await start();
    await connected(h);
    // The fake's session is gone, though the message says it is valid for an hour.
    h.fake.pushMessage({
      chatType: 'dm',
      sender: 'staff-3',
      text: 'hi',
      webhookTtlMs: -1,
      extra: { sessionWebhookExpiredTime: Date.now() + 3_600_000 },
    });
    await h.fake.until(() => h.fake.sent.length === 1, 'the first answer');
    assert.equal(h.fake.callsTo('/robot/sendBySession').length, 1);
    assert.equal(h.fake.sent[0]?.via, 'api');
    h.fake.pushMessage({
      chatType: 'dm',
      sender: 'staff-4',
      text: 'hi',
      extra: { sessionWebhook: 'http://127.0.0.2:9/robot/sendBySession?session=x' },
    });
    await h.fake.until(() => h.fake.sent.length === 2, 'the second answer');
    assert.equal(h.fake.sent[1]?.via, 'api');
    assert.equal(h.fake.sent[1]?.chatId, 'staff-4');
  });

  it('a long answer is split into markdown messages of at most 4000 characters', async () => {
    h = await start({ reply: `${'a'.repeat(3990)}\n${'b'.repeat(2000)}` });
    await connected(h);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-5', text: 'a lot' });
    await h.fake.until(() => h.fake.sent.length === 2, 'two messages');
    assert.deepEqual(
      h.fake.sent.map((entry) => entry.content),
      ['a'.repeat(3990), 'b'.repeat(2000)],
    );
  });
});

describe('dingtalk AI card', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('with card_template_id the answer streams into an AI card, finalized last', async () => {
    const answer = 'A long answer streamed into the card in many small pieces.';
    h = await start({ account: { card_template_id: 'tmpl-1.schema' }, reply: answer });
    await connected(h);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-9', text: 'stream please' });
    await h.fake.until(() => h.fake.cards[0]?.updates.at(-1)?.isFinalize === true, 'a finalized card');
    const card = h.fake.cards[0]!;
    assert.equal(card.chatId, 'staff-9');
    assert.equal(card.templateId, 'tmpl-1.schema');
    const create = h.fake.callsTo('/v1.0/card/instances/createAndDeliver')[0];
    assert.equal(create?.body['openSpaceId'], 'dtv1.card//IM_ROBOT.staff-9');
    assert.deepEqual(create?.body['imRobotOpenDeliverModel'], {
      spaceType: 'IM_ROBOT',
      robotCode: CLIENT_ID,
    });
    assert.equal(card.updates.at(-1)?.content, answer);
    assert.ok(card.updates.slice(0, -1).every((update) => !update.isFinalize));
    assert.ok(card.updates.every((update) => update.key === 'content' && update.isFull));
    // Each update shows more of the answer than the one before.
    for (const [index, update] of card.updates.entries()) {
      assert.ok(answer.startsWith(update.content));
      assert.ok(index === 0 || update.content.length >= (card.updates[index - 1]?.content.length ?? 0));
    }
    assert.equal(h.fake.sent.length, 0, 'no plain message besides the card');
  });

  it('card updates reach the platform in order, and a group card goes to the group space', async () => {
    h = await start();
    const adapter = new DingTalkAdapter();
    const account: ChannelAccount = {
      platform: 'dingtalk',
      id: 'bot1',
      config: accountSchema.parse({ app_id: CLIENT_ID, app_secret: SECRET, api_base: h.fake.url }),
    };
    const message: InboundMessage = {
      platform: 'dingtalk',
      accountId: 'bot1',
      chatId: 'cidRoom==',
      chatType: 'group',
      senderId: 'staff-1',
      text: 'hi',
      replyContext: { conversationId: 'cidRoom==' },
    };
    const signal = new AbortController().signal;
    const stream = await adapter.beginReply(
      { ...account, config: { ...account.config, card_template_id: 'tmpl-2' } },
      message,
      signal,
    );
    assert.ok(stream, 'a card reply with a template');
    await stream.update('Hel');
    await stream.update('Hello');
    await stream.finish('Hello, group!');
    const card = h.fake.cards[0];
    assert.equal(card?.chatId, 'cidRoom==');
    assert.deepEqual(
      card?.updates.map((update) => [update.content, update.isFinalize]),
      [
        ['Hel', false],
        ['Hello', false],
        ['Hello, group!', true],
      ],
    );
    const create = h.fake.callsTo('/v1.0/card/instances/createAndDeliver')[0];
    assert.equal(create?.body['openSpaceId'], 'dtv1.card//IM_GROUP.cidRoom==');
    // Without a template there is no streamed reply: the answer is sent as markdown with sendText.
    assert.equal(await adapter.beginReply(account, message, signal), undefined);
    assert.equal(h.fake.sent.length, 0);
    await adapter.sendText(account, message.chatId, 'Plain answer', { replyContext: message.replyContext });
    assert.deepEqual(
      h.fake.sent.map((entry) => [entry.chatId, entry.via, entry.content]),
      [['cidRoom==', 'api', 'Plain answer']],
    );
    assert.equal(h.fake.cards.length, 1);
  });
});

describe('dingtalk pictures', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('pictures users send reach the turn as data: URLs, downloaded with the bot credentials', async () => {
    h = await start();
    await connected(h);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', pictures: [{ bytes: PNG }] });
    h.fake.pushMessage({
      chatType: 'dm',
      sender: 'staff-1',
      text: 'look at these',
      pictures: [
        { bytes: PNG },
        { bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1]), contentType: 'image/jpeg' },
      ],
    });
    await h.fake.until(() => h.handled.length === 2, 'both messages');
    const [alone, rich] = h.handled.map((entry) => entry.message);
    assert.equal(alone?.text, '');
    assert.deepEqual(alone?.images, [{ url: `data:image/png;base64,${PNG.toString('base64')}` }]);
    assert.equal(rich?.text, 'look at these');
    assert.deepEqual(
      rich?.images?.map((image) => image.url.slice(0, 23)),
      ['data:image/png;base64,i', 'data:image/jpeg;base64,'],
    );
    const download = h.fake.callsTo('/v1.0/robot/messageFiles/download')[0];
    assert.equal(download?.body['robotCode'], CLIENT_ID);
    assert.match(String(download?.body['downloadCode']), /^download-code-/);
    assert.match(download?.token ?? '', /^token-/);
  });

  it('a picture over the size cap is left out and logged; the text still gets its turn', async () => {
    h = await start({ adapter: { maxPictureBytes: 10 } });
    await connected(h);
    h.fake.pushMessage({
      chatType: 'dm',
      sender: 'staff-1',
      text: 'big one',
      pictures: [{ bytes: Buffer.alloc(64, 1) }],
    });
    await h.fake.until(() => h.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.message.images, undefined);
    assert.equal(h.handled[0]?.outcome, 'replied');
    assert.ok(
      h.logs.some((line) => line.startsWith('dingtalk: a picture could not be downloaded')),
      h.logs.join('\n'),
    );
  });
});

describe('dingtalk outbound', () => {
  let h: Harness;
  afterEach(() => h?.close());

  const post = (url: string, payload: object) =>
    h.t.app.inject({ method: 'POST', url: `/api/v1/channels/dingtalk/${url}`, payload });

  it('send-image uploads through the old API and sends sampleImageMsg with the media id', async () => {
    h = await start();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'chart.png'), PNG);
    const response = await post('send-image', { chatId: 'cidGroup==', imagePath: 'main:chart.png' });
    assert.equal(response.statusCode, 200, response.body);
    const upload = h.fake.callsTo('/media/upload')[0];
    assert.equal(upload?.query['type'], 'image');
    assert.equal(upload?.files['media']?.fileName, 'chart.png');
    assert.deepEqual(upload?.files['media']?.bytes, PNG);
    const sent = h.fake.sent[0];
    assert.equal(sent?.kind, 'image');
    assert.equal(sent?.chatId, 'cidGroup==');
    assert.equal(sent?.msgKey, 'sampleImageMsg');
    assert.ok(h.fake.media.has(String(sent?.params['photoURL'])), 'photoURL is the uploaded media_id');
    assert.match(response.json().messageId, /^query-/);
    // A reference is sent as it is, to a user this time.
    const byKey = await post('send-image', { chatId: 'staff-8', imageKey: '@lADPknown' });
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.deepEqual(h.fake.sent[1]?.params, { photoURL: '@lADPknown' });
    assert.equal(h.fake.callsTo('/media/upload').length, 1);
  });

  it('send-file uploads the file and sends sampleFile with its name and type', async () => {
    h = await start();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'notes.txt'), 'report body');
    const response = await post('send-file', {
      chatId: 'staff-8',
      filePath: 'main:notes.txt',
      fileName: 'Report.TXT',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(h.fake.callsTo('/media/upload')[0]?.query['type'], 'file');
    assert.equal(h.fake.callsTo('/media/upload')[0]?.files['media']?.bytes.toString(), 'report body');
    const sent = h.fake.sent[0];
    assert.equal(sent?.kind, 'file');
    assert.equal(sent?.chatId, 'staff-8');
    assert.deepEqual(sent?.params, {
      mediaId: sent?.params['mediaId'],
      fileName: 'Report.TXT',
      fileType: 'txt',
    });
    assert.ok(h.fake.media.has(String(sent?.params['mediaId'])));
  });

  it('send: an unknown user is a 502; an expired token is renewed and the send retried', async () => {
    h = await start();
    const unknown = await post('send', { chatId: 'nobody-1', message: 'hi' });
    assert.equal(unknown.statusCode, 502);
    assert.match(unknown.json().error, /"nobody-1" is not a user id/);
    h.fake.expireTokens();
    const retried = await post('send', { chatId: 'staff-1', message: 'after expiry' });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(h.fake.callsTo('/v1.0/oauth2/accessToken').length, 2);
    assert.deepEqual(h.fake.textsIn('staff-1'), ['after expiry']);
    h.fake.expireTokens();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'a.png'), PNG);
    const image = await post('send-image', { chatId: 'staff-1', imagePath: 'main:a.png' });
    assert.equal(image.statusCode, 200, image.body);
    assert.equal(h.fake.callsTo('/media/upload').length, 2, 'the upload was retried with a new token');
  });

  it('the access token is cached until shortly before it expires', async () => {
    h = await start({ fake: { tokenTtlSeconds: 1 } });
    assert.equal((await post('send', { chatId: 'staff-1', message: 'one' })).statusCode, 200);
    assert.equal((await post('send', { chatId: 'staff-1', message: 'two' })).statusCode, 200);
    assert.equal(h.fake.callsTo('/v1.0/oauth2/accessToken').length, 1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal((await post('send', { chatId: 'staff-1', message: 'three' })).statusCode, 200);
    assert.equal(h.fake.callsTo('/v1.0/oauth2/accessToken').length, 2);
  });
});

describe('dingtalk stream connection', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('a redelivered callback is acknowledged again but starts no second turn', async () => {
    h = await start();
    await connected(h);
    const frameId = h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'once', msgId: 'msgOnce' });
    h.fake.redeliver(frameId);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'twice', msgId: 'msgTwo' });
    await h.fake.until(() => h.upstream.requestCount === 2, 'two turns');
    await h.fake.until(() => h.fake.acks.filter((ack) => ack.messageId === frameId).length === 2, 'two ACKs');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(h.upstream.requestCount, 2);
    assert.ok(h.logs.some((line) => line.startsWith('redelivered channel message dropped')));
  });

  it('answers SYSTEM pings with their data', async () => {
    h = await start();
    await connected(h);
    const answer = await h.fake.ping();
    assert.equal(answer.code, 200);
    assert.match(answer.data, /^\{"opaque":"opaque-ping-\d+"\}$/);
  });

  it('on SYSTEM disconnect it reconnects at once, before the platform closes the socket', async () => {
    // The platform would close the old socket after a minute; the new one must be up (and the old one
    // closed by us) well before, however busy the machine is.
    h = await start({ fake: { disconnectGraceMs: 60_000 } });
    await connected(h);
    h.fake.systemDisconnect();
    await h.fake.until(
      () => h.fake.socketsOpened === 2 && h.fake.liveConnections === 1,
      'a new connection',
      50_000,
    );
    assert.equal(h.fake.gatewayCalls, 2, 'a new ticket for the new socket');
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'still there?' });
    await h.fake.until(() => h.fake.sent.length === 1, 'the answer after reconnecting');
  });

  it('a connection that stops answering pings is dropped and opened again', async () => {
    h = await start({ adapter: { pingIntervalMs: 50 } });
    await connected(h);
    h.fake.stopAnsweringPings();
    await h.fake.until(() => h.fake.socketsOpened >= 2, 'a new connection');
    assert.ok(
      h.logs.some((line) => line.includes('the connection stopped answering pings')),
      h.logs.join('\n'),
    );
  });

  it('a platform restart (socket dropped, gateway failing) is retried until it connects again', async () => {
    h = await start();
    await connected(h);
    h.fake.failNext('/v1.0/gateway/connections/open', 503, 2);
    h.fake.dropConnections();
    await h.fake.until(() => h.fake.gatewayCalls >= 4 && h.fake.liveConnections === 1, 'the new connection');
    // The socket is open before the adapter has read the platform's acceptance: wait for that too.
    const deadline = Date.now() + 20_000;
    while ((await status(h)).state !== 'connected') {
      assert.ok(Date.now() < deadline, `still ${(await status(h)).state}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lost = h.logs.filter((line) => line.startsWith('channel connection lost; reconnecting'));
    assert.equal(lost.length, 3, h.logs.join('\n'));
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'back?' });
    await h.fake.until(() => h.fake.sent.length === 1, 'the answer');
  });

  it('malformed frames and other topics are skipped without breaking the connection', async () => {
    h = await start();
    await connected(h);
    h.fake.pushRaw('not json');
    h.fake.pushRaw(
      JSON.stringify({
        type: 'CALLBACK',
        headers: { topic: '/v1.0/im/bot/messages/get', messageId: 'x1' },
        data: '{',
      }),
    );
    h.fake.pushRaw(
      JSON.stringify({
        type: 'CALLBACK',
        headers: { topic: '/v1.0/card/instances/callback', messageId: 'x2' },
        data: '{}',
      }),
    );
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', extra: { msgtype: 'video', content: {} } });
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'fine' });
    await h.fake.until(() => h.handled.length === 1, 'the answer');
    assert.equal(h.fake.sent.length, 1);
    assert.equal(h.fake.liveConnections, 1);
    assert.ok(h.logs.some((line) => line.startsWith('dingtalk stream: a malformed frame was skipped')));
    assert.ok(
      h.logs.some((line) => line.startsWith('dingtalk: a robot message that is not JSON was skipped')),
    );
  });
});

describe('dingtalk accounts and secrets', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('requires app_id and app_secret, refuses fields of other platforms, takes card_template_id', async () => {
    h = await start();
    const create = (payload: object) =>
      h.t.app.inject({ method: 'POST', url: '/api/v1/channels/dingtalk/accounts', payload });
    const missing = await create({ id: 'b2', app_secret: 'x' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /app_id: the client id/);
    const noSecret = await create({ id: 'b2', app_id: 'x' });
    assert.equal(noSecret.statusCode, 400);
    assert.match(noSecret.json().error, /app_secret/);
    const foreign = await create({
      id: 'b2',
      app_id: 'x',
      app_secret: 'y',
      token: 'wecom-token',
      mode: 'bot',
    });
    assert.equal(foreign.statusCode, 400);
    assert.match(foreign.json().error, /mode: not used by dingtalk/);
    assert.match(foreign.json().error, /token: not used by dingtalk/);
    const card = await create({
      id: 'b2',
      app_id: 'x',
      app_secret: 'y',
      card_template_id: 't.schema',
      enabled: false,
    });
    assert.ok(card.statusCode === 200 || card.statusCode === 201, card.body);
    assert.equal(card.json().cardTemplateId, 't.schema');
  });

  it('no secret, token or ticket reaches a log line, an account status or an error answer', async () => {
    h = await start({ account: { app_secret: 'WRONG-secret-zyxwvut-987654' } });
    // The fake echoes the wrong secret in its refusal.
    await h.fake.until(
      () => h.logs.filter((line) => line.includes('channel connection lost')).length >= 2,
      'failures',
    );
    const failed = await status(h);
    assert.equal(failed.state, 'error');
    assert.match(failed.error ?? '', /gateway\/connections\/open failed \(status 401/);
    const update = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/dingtalk/accounts/bot1',
      payload: { app_secret: SECRET },
    });
    assert.equal(update.statusCode, 200, update.body);
    await connected(h);
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'hi', webhookTtlMs: -1 });
    await h.fake.until(() => h.fake.sent.length === 1, 'the answer');
    const token = h.fake.callsTo('/v1.0/robot/oToMessages/batchSend')[0]?.token ?? '';
    assert.match(token, /^token-/);
    // A 500 is retried: it fails on every attempt (four) to reach the answer.
    h.fake.failNext('/v1.0/robot/groupMessages/send', 500, 4, {
      code: 'InternalError',
      message: `failed for ${token} with ${SECRET}`,
    });
    const answer = await h.t.app.inject({
      method: 'POST',
      url: '/api/v1/channels/dingtalk/send',
      payload: { chatId: 'cidX==', message: 'x' },
    });
    assert.equal(answer.statusCode, 502);
    assert.match(
      answer.json().error,
      /groupMessages\/send failed \(status 500, code InternalError\): failed for \[redacted\]/,
    );
    h.fake.pushMessage({ chatType: 'dm', sender: 'staff-1', text: 'big', pictures: [{ bytes: PNG }] });
    h.fake.failNext('/v1.0/robot/messageFiles/download', 400, 1, { code: 'Bad', message: `no ${token}` });
    await h.fake.until(() => h.handled.length === 2, 'the picture message');
    const everything = [...h.logs, answer.body, JSON.stringify(await status(h))].join('\n');
    for (const secret of [SECRET, 'WRONG-secret-zyxwvut-987654', token]) {
      assert.ok(!everything.includes(secret), `${secret} leaked:\n${everything}`);
    }
    assert.ok(
      h.logs.some((line) => line.includes('[redacted]')),
      'the echoed secrets were scrubbed, not absent',
    );
  });
});
