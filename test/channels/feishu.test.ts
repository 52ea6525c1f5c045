// The Feishu long-connection adapter end to end: the SDK's WSClient against a fake Feishu on
// loopback (protobuf frames, acks, pings), the reply card patched as the answer streams, mentions,
// rich text and images, the outbound endpoints, the token cache, and secrets kept out of errors.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { FeishuAdapter, type FeishuAdapterOptions } from '../../src/channels/feishu/feishu-adapter.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { type ChannelApp, createChannelApp, waitFor } from './channel-app.ts';

const SECRET = 'feishu-SECRET-value-0123456789';
const REPLY = 'Hello from the agent.';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

interface Harness extends Omit<ChannelApp, 'logger'> {
  feishu: FakeFeishu;
  upstream: FakeUpstream;
  status(): Promise<{ state: string; error?: string }>;
  close(): Promise<void>;
}

async function start(
  options: {
    account?: Record<string, unknown>;
    reply?: string;
    latencyMs?: number;
    adapter?: FeishuAdapterOptions;
    pingIntervalSeconds?: number;
  } = {},
): Promise<Harness> {
  const upstream = await startFakeUpstream({
    reply: options.reply ?? REPLY,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  const feishu = await startFakeFeishu({
    appSecret: SECRET,
    ...(options.pingIntervalSeconds ? { pingIntervalSeconds: options.pingIntervalSeconds } : {}),
  });
  const { t, handled, logs } = await createChannelApp({
    platform: 'feishu',
    models: upstream.modelsConfig(),
    account: { app_id: feishu.appId, app_secret: SECRET, api_base: feishu.url, ...options.account },
    adapter: (logger) => new FeishuAdapter({ connectionCheckMs: 50, logger, ...options.adapter }),
  });
  const status = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/channels/feishu/accounts/bot1' })).json().status;
  await waitFor(async () => (await status()).state === 'connected', 'the connection');
  return {
    t,
    feishu,
    upstream,
    handled,
    logs,
    status,
    async close() {
      await t.close();
      await feishu.close();
      await upstream.close();
    },
  };
}

const group = { chatId: 'oc_group1', chatType: 'group' as const, senderOpenId: 'ou_alice' };
const dm = { chatId: 'oc_dm1', chatType: 'p2p' as const, senderOpenId: 'ou_alice' };

describe('feishu long connection', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a group message mentioning the bot gets a thinking card replying to it, patched into the answer', async () => {
    h = await start({ reply: 'A long answer, streamed in several pieces to the card.' });
    const feishu = h.feishu;
    feishu.userSays({ ...group, text: '@bot what is new?', messageId: 'om_q1' });
    await waitFor(
      () => feishu.textsIn('oc_group1').includes('A long answer, streamed in several pieces to the card.'),
      'the answer',
    );
    assert.equal(feishu.sent.length, 1, 'one card, edited in place');
    const card = feishu.sent[0]!;
    assert.equal(card.msgType, 'interactive');
    assert.equal(card.replyTo, 'om_q1');
    assert.equal(card.replyInThread, false);
    assert.ok(card.edits.length >= 1);
    // One message was created; the rest were patches of it.
    assert.deepEqual(
      feishu.calls.filter((call) => call.call.startsWith('POST /open-apis/im/v1/messages')).length,
      1,
    );
    // The bot's own mention is not part of what the agent reads; no patch hit the 5 per second limit.
    assert.match(JSON.stringify(h.upstream.requests[0]), /what is new\?/);
    assert.doesNotMatch(JSON.stringify(h.upstream.requests[0]), /@_user_1|@Fake Bot/);
    assert.ok(feishu.calls.every((call) => call.status !== 429));
    await waitFor(() => h!.handled.length === 1, 'the outcome');
    assert.equal(h.handled[0]?.message.mentioned, true);
  });

  it('a DM gets a card in the chat (not a quoted reply) showing "Thinking…" first', async () => {
    h = await start({ latencyMs: 300, adapter: { thinkingText: 'Thinking…' } });
    h.feishu.userSays({ ...dm, text: 'hi' });
    await waitFor(() => h!.feishu.sent.length === 1, 'the card');
    assert.equal(h.feishu.textsIn('oc_dm1')[0], 'Thinking…');
    assert.equal(h.feishu.sent[0]?.replyTo, undefined);
    assert.equal(h.feishu.sent[0]?.receiveIdType, 'chat_id');
    await waitFor(() => h!.feishu.textsIn('oc_dm1').includes(REPLY), 'the answer');
  });

  it('in groups only mentions are answered, unless group_require_mention is false', async () => {
    h = await start();
    h.feishu.userSays({ ...group, text: 'just chatting', messageId: 'om_n1' });
    await waitFor(() => h!.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.outcome, 'ignored');
    assert.equal(h.handled[0]?.message.mentioned, false);
    // Mentioning someone else is not mentioning the bot.
    h.feishu.userSays({
      ...group,
      text: '@_user_1 can you look?',
      mentions: [{ key: '@_user_1', openId: 'ou_bob', name: 'Bob' }],
    });
    await waitFor(() => h!.handled.length === 2, 'the second message');
    assert.equal(h.handled[1]?.outcome, 'ignored');
    assert.equal(h.handled[1]?.message.text, '@Bob can you look?');
    assert.equal(h.upstream.requestCount, 0);
    const update = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/feishu/accounts/bot1',
      payload: { group_require_mention: false },
    });
    assert.equal(update.statusCode, 200, update.body);
    h.feishu.userSays({ ...group, text: 'anyone?', messageId: 'om_n3' });
    await waitFor(() => h!.feishu.textsIn('oc_group1').includes(REPLY), 'the answer');
    assert.equal(h.upstream.requestCount, 1);
  });

  it('rich text reaches the agent as text, with links and mentions written out and its images attached', async () => {
    h = await start();
    h.feishu.addResource('om_post1', 'img_in_post', PNG, 'image/png');
    h.feishu.userSays({
      ...dm,
      messageId: 'om_post1',
      mentions: [{ key: '@_user_1', openId: 'ou_bob', name: 'Bob' }],
      post: {
        title: 'Weekly report',
        content: [
          [
            { tag: 'text', text: 'Ask ' },
            { tag: 'at', user_id: '@_user_1', user_name: 'Bob' },
            { tag: 'text', text: ' about ' },
            { tag: 'a', text: 'the doc', href: 'https://example.test/doc' },
          ],
          [{ tag: 'img', image_key: 'img_in_post' }],
        ],
      },
    });
    await waitFor(() => h!.handled.length === 1, 'the message');
    const message = h.handled[0]!.message;
    assert.equal(message.text, 'Weekly report\nAsk @Bob about [the doc](https://example.test/doc)');
    assert.deepEqual(message.images, [{ url: `data:image/png;base64,${PNG.toString('base64')}` }]);
    assert.match(JSON.stringify(h.upstream.requests[0]), /Ask @Bob about/);
  });

  it('an image message is downloaded with the bot credentials into a data: URL', async () => {
    h = await start();
    h.feishu.addResource('om_img1', 'img_v3_user', PNG, 'application/octet-stream');
    h.feishu.userSays({ ...dm, messageId: 'om_img1', imageKey: 'img_v3_user' });
    await waitFor(() => h!.handled.length === 1, 'the message');
    const message = h.handled[0]!.message;
    assert.equal(message.text, '[image]');
    // The type is sniffed from the bytes when Feishu does not name it.
    assert.deepEqual(message.images, [{ url: `data:image/png;base64,${PNG.toString('base64')}` }]);
    assert.ok(
      h.feishu.calls.some(
        (call) => call.call === 'GET /open-apis/im/v1/messages/om_img1/resources/img_v3_user',
      ),
    );
  });

  it('an image larger than the cap is left out; the message still gets its turn', async () => {
    h = await start({ adapter: { maxImageBytes: 1024 } });
    h.feishu.addResource('om_big', 'img_big', Buffer.alloc(4096, 1), 'image/png');
    h.feishu.userSays({ ...dm, messageId: 'om_big', imageKey: 'img_big' });
    await waitFor(() => h!.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.message.images, undefined);
    assert.equal(h.handled[0]?.outcome, 'replied');
    assert.ok(h.logs.some((line) => line.startsWith('feishu image skipped')));
  });

  it('an event split over several frames is merged and every frame is acknowledged', async () => {
    h = await start();
    const frameId = h.feishu.pushEvent(h.feishu.messageEvent({ ...dm, text: 'x'.repeat(500) }), 3);
    await waitFor(() => h!.handled.length === 1, 'the message');
    assert.equal(h.handled[0]?.message.text, 'x'.repeat(500));
    await waitFor(() => h!.feishu.acks.some((ack) => ack.frameId === frameId), 'the ack');
    assert.deepEqual(
      h.feishu.acks.filter((ack) => ack.frameId === frameId).map((ack) => ack.code),
      [200],
    );
  });

  it('a redelivered event id is dropped even when it carries a new message id', async () => {
    h = await start();
    h.feishu.userSays({ ...dm, text: 'once', messageId: 'om_r1', eventId: 'ev_same' });
    h.feishu.userSays({ ...dm, text: 'once', messageId: 'om_r2', eventId: 'ev_same' });
    h.feishu.userSays({ ...dm, text: 'twice', messageId: 'om_r3', eventId: 'ev_other' });
    await waitFor(() => h!.upstream.requestCount === 2, 'two turns');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(h.upstream.requestCount, 2);
    assert.ok(h.logs.some((line) => line.startsWith('redelivered feishu event dropped')));
  });

  it('a message in a topic thread is answered in that thread', async () => {
    h = await start();
    h.feishu.userSays({ ...group, text: '@bot in the thread', messageId: 'om_t1', threadId: 'omt_thread1' });
    await waitFor(() => h!.feishu.textsIn('oc_group1').includes(REPLY), 'the answer');
    assert.equal(h.feishu.sent[0]?.replyInThread, true);
    // The outcome comes once the turn is stored, which may be after the answer shows.
    await waitFor(() => h!.handled.length === 1, 'the outcome');
    assert.equal(h.handled[0]?.message.threadId, 'omt_thread1');
  });

  it('a long answer finishes the card with the first part and continues in further cards', async () => {
    const long = `${'a'.repeat(5000)}\n${'b'.repeat(5000)}\n${'c'.repeat(3000)}`;
    h = await start({ reply: long });
    h.feishu.userSays({ ...group, text: '@bot tell me a lot', messageId: 'om_l1' });
    await waitFor(() => h!.feishu.sent.length === 3 && h!.handled.length === 1, 'three cards');
    const texts = h.feishu.textsIn('oc_group1');
    assert.deepEqual(texts, ['a'.repeat(5000), 'b'.repeat(5000), 'c'.repeat(3000)]);
    assert.ok(
      h.feishu.sent.every((message) => message.msgType === 'interactive' && message.replyTo === 'om_l1'),
    );
  });

  it('when Feishu refuses to update the card, the answer is sent as a new card', async () => {
    h = await start();
    h.feishu.failNext(/^PATCH /, 400, 230031, 100, { msg: 'the message was recalled' });
    h.feishu.userSays({ ...dm, text: 'hello' });
    await waitFor(() => h!.handled.length === 1, 'the answer');
    assert.deepEqual(h.feishu.textsIn('oc_dm1'), ['Thinking…', REPLY]);
    assert.equal(h.handled[0]?.outcome, 'replied');
  });

  it('an agent answer cannot mention @all', async () => {
    h = await start({ reply: 'Hey <at id=all></at> and <at user_id="all">all</at>' });
    h.feishu.userSays({ ...dm, text: 'ping everyone' });
    await waitFor(() => h!.handled.length === 1, 'the answer');
    const shown = h.feishu.textsIn('oc_dm1').at(-1) ?? '';
    assert.doesNotMatch(shown, /<at\b/i);
    assert.match(shown, /<\u200bat id=all>/);
  });

  it('a dropped connection shows an error state, then reconnects and answers', async () => {
    h = await start();
    const before = h.feishu.connects;
    h.feishu.refuseEndpoint(2);
    h.feishu.dropConnections();
    await waitFor(async () => (await h!.status()).state !== 'connected', 'the drop to show');
    await waitFor(() => h!.feishu.connects > before, 'a new socket');
    await waitFor(async () => (await h!.status()).state === 'connected', 'connected again');
    const endpointCalls = h.feishu.calls.filter((call) => call.call === 'POST /callback/ws/endpoint').length;
    assert.ok(endpointCalls >= 4, `the refused discoveries were retried (${endpointCalls})`);
    // Why a try failed is in the log, in the SDK's words.
    assert.ok(
      h.logs.some((line) => line.includes('system busy')),
      h.logs.join('\n'),
    );
    h.feishu.userSays({ ...dm, text: 'back?' });
    await waitFor(() => h!.feishu.textsIn('oc_dm1').includes(REPLY), 'the answer');
  });

  it('answers pings; a socket that stops answering them is closed and replaced', async () => {
    h = await start({ pingIntervalSeconds: 1, adapter: { pingTimeoutSeconds: 1 } });
    await waitFor(() => h!.feishu.pings >= 1, 'a ping');
    assert.equal(h.feishu.connects, 1);
    h.feishu.answerPings(false);
    await waitFor(() => h!.feishu.connects >= 2, 'a new socket after the silence', 10_000);
    h.feishu.answerPings(true);
    await waitFor(async () => (await h!.status()).state === 'connected', 'connected again');
  });

  it('stopping the service closes the socket', async () => {
    h = await start();
    assert.equal(h.feishu.liveSockets, 1);
    await h.t.close();
    await waitFor(() => h!.feishu.liveSockets === 0, 'the socket to close');
    await h.feishu.close();
    await h.upstream.close();
    h = undefined;
  });

  it('a wrong secret is an error state that names Feishu`s code and not the secret', async () => {
    h = await start();
    await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/feishu/accounts/bot1',
      payload: { app_secret: 'wrong-SECRET-value-999' },
    });
    await waitFor(async () => (await h!.status()).state === 'error', 'the error state');
    const status = await h.status();
    assert.match(status.error ?? '', /code 10014/);
    assert.doesNotMatch(JSON.stringify(status), /wrong-SECRET-value-999/);
    assert.ok(h.logs.every((line) => !line.includes('wrong-SECRET-value-999') && !line.includes(SECRET)));
  });
});

describe('feishu outbound', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const post = (url: string, payload: Record<string, unknown>) =>
    h!.t.app.inject({ method: 'POST', url: `/api/v1/channels/feishu/${url}`, payload });

  it('the receive_id_type follows the id: oc_ chat, ou_ open_id, on_ union_id, email, else user_id', async () => {
    h = await start();
    for (const chatId of ['oc_chat', 'ou_user', 'on_union', 'someone@example.test', '5d8a1b2c']) {
      const sent = await post('send', { chatId, message: `to ${chatId}` });
      assert.equal(sent.statusCode, 200, sent.body);
      assert.match(sent.json().messageId, /^om_bot/);
    }
    assert.deepEqual(
      h.feishu.sent.map((message) => message.receiveIdType),
      ['chat_id', 'open_id', 'union_id', 'email', 'user_id'],
    );
    assert.deepEqual(h.feishu.sent[0]?.content, { text: 'to oc_chat' });
  });

  it('send-image uploads first (image_type message); an imageKey is sent as it is', async () => {
    h = await start();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'chart.png'), PNG);
    const uploaded = await post('send-image', { chatId: 'oc_chat', imagePath: 'main:chart.png' });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.equal(h.feishu.uploads.length, 1);
    assert.deepEqual(
      {
        type: h.feishu.uploads[0]?.type,
        name: h.feishu.uploads[0]?.fileName,
        bytes: h.feishu.uploads[0]?.bytes,
      },
      { type: 'message', name: 'chart.png', bytes: PNG },
    );
    const byKey = await post('send-image', { chatId: 'oc_chat', imageKey: 'img_v3_existing' });
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.equal(h.feishu.uploads.length, 1, 'no upload for a key');
    assert.deepEqual(
      h.feishu.sent.map((message) => [message.msgType, message.content['image_key']]),
      [
        ['image', h.feishu.uploads[0]?.key],
        ['image', 'img_v3_existing'],
      ],
    );
  });

  it('send-file uploads with its name and file_type; a fileKey is sent as it is', async () => {
    h = await start();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'report.pdf'), '%PDF-1.4 fake');
    const uploaded = await post('send-file', {
      chatId: 'oc_chat',
      filePath: 'main:report.pdf',
      fileName: 'Q3.pdf',
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.deepEqual(
      { type: h.feishu.uploads[0]?.type, name: h.feishu.uploads[0]?.fileName },
      { type: 'pdf', name: 'Q3.pdf' },
    );
    const byKey = await post('send-file', { chatId: 'oc_chat', fileKey: 'file_v3_existing' });
    assert.equal(byKey.statusCode, 200, byKey.body);
    assert.deepEqual(
      h.feishu.sent.map((message) => [message.msgType, message.content['file_key']]),
      [
        ['file', h.feishu.uploads[0]?.key],
        ['file', 'file_v3_existing'],
      ],
    );
  });

  it('the tenant token is fetched once, and fetched again once when Feishu says it is invalid', async () => {
    h = await start();
    const before = h.feishu.tokenRequests;
    for (const n of [1, 2, 3])
      assert.equal((await post('send', { chatId: 'oc_chat', message: `n${n}` })).statusCode, 200);
    assert.equal(h.feishu.tokenRequests, before, 'cached');
    h.feishu.expireTokens();
    const again = await post('send', { chatId: 'oc_chat', message: 'after expiry' });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(h.feishu.tokenRequests, before + 1);
    assert.deepEqual(h.feishu.textsIn('oc_chat'), ['n1', 'n2', 'n3', 'after expiry']);
  });

  it('a rate-limited send is retried once after the wait Feishu asks for', async () => {
    h = await start();
    h.feishu.failNext(/^POST \/open-apis\/im\/v1\/messages$/, 429, 99991400, 1, {
      headers: { 'x-ogw-ratelimit-reset': '0' },
    });
    const sent = await post('send', { chatId: 'oc_chat', message: 'after the limit' });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.deepEqual(h.feishu.textsIn('oc_chat'), ['after the limit']);
  });

  it('a failed send is a 502 with Feishu`s code, and credentials it echoes are scrubbed', async () => {
    h = await start();
    h.feishu.failNext(/^POST \/open-apis\/im\/v1\/messages$/, 400, 230002, 1, {
      msg: `bot is not in the chat (secret ${SECRET})`,
    });
    const sent = await post('send', { chatId: 'oc_nowhere', message: 'hello' });
    assert.equal(sent.statusCode, 502);
    assert.match(
      sent.json().error,
      /^feishu send message failed \(status 400, code 230002\): bot is not in the chat/,
    );
    assert.doesNotMatch(sent.body, new RegExp(SECRET));
  });

  it('a long text is sent as several messages', async () => {
    h = await start();
    const text = `${'x'.repeat(19_000)}\n${'y'.repeat(5_000)}`;
    const sent = await post('send', { chatId: 'oc_chat', message: text });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.deepEqual(h.feishu.textsIn('oc_chat'), ['x'.repeat(19_000), 'y'.repeat(5_000)]);
  });
});

describe('feishu accounts', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('refuses accounts without credentials, with a malformed app_id or with fields of other platforms', async () => {
    t = await createTestApp({
      config: { channels: { feishu: { enabled: true }, feishu_webhook: { enabled: true } } },
    });
    const create = (platform: string, payload: Record<string, unknown>) =>
      t!.app.inject({ method: 'POST', url: `/api/v1/channels/${platform}/accounts`, payload });
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['feishu', { id: 'a1', app_id: 'cli_a1b2c3d4e5f60718' }, /app_secret: the App Secret is required/],
      ['feishu', { id: 'a2', app_secret: 's' }, /app_id: the App ID is required/],
      ['feishu', { id: 'a3', app_id: 'my-app', app_secret: 's' }, /app_id: must be the App ID/],
      [
        'feishu',
        { id: 'a4', app_id: 'cli_a1b2c3d4e5f60718', app_secret: 's', mode: 'bot' },
        /mode: not used by feishu/,
      ],
      [
        'feishu_webhook',
        { id: 'a5', app_id: 'cli_a1b2c3d4e5f60718', app_secret: 's' },
        /verification_token: the Verification Token .* is required/,
      ],
      [
        'feishu_webhook',
        { id: 'a6', app_id: 'x', app_secret: 's', verification_token: 'v', token: 't' },
        /token: not used by feishu_webhook/,
      ],
    ];
    for (const [platform, payload, error] of cases) {
      const response = await create(platform, payload);
      assert.equal(response.statusCode, 400, `${platform} ${JSON.stringify(payload)}: ${response.body}`);
      assert.match(response.json().error, error);
    }
    const disabled = await create('feishu', { id: 'off', enabled: false });
    assert.equal(disabled.statusCode, 201, disabled.body);
  });
});
