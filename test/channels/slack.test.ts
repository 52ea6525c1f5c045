// What only Slack does, against a fake Slack on loopback: Socket Mode envelopes and their acks,
// mentions and threads (one session per thread), the "thinking" message edited as the answer streams,
// 429 Retry-After, long answers, users' images, files.uploadV2, the Events API's signature window,
// account checks, and no token in any answer or log line.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { slackSignature } from '../../src/channels/slack/events-api.ts';
import { SlackAdapter, type SlackOptions } from '../../src/channels/slack/slack-adapter.ts';
import { SLACK_TEXT_LIMIT, THINKING } from '../../src/channels/slack/slack-send.ts';
import type { TestApp } from '../fakes/app-harness.ts';
import { BOT_ID, BOT_USER_ID, startFakeSlack, type FakeSlack } from '../fakes/fake-slack.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { type ChannelApp, createChannelApp, pause, waitFor } from './channel-app.ts';

const BOT_TOKEN = 'xoxb-SECRET-bot-token-never-shown';
const APP_TOKEN = 'xapp-SECRET-app-token-never-shown';
const SIGNING_SECRET = 'SECRET-signing-secret-never-shown';
const REPLY = 'Hello from the agent, edited into Slack.';
type LightResponse = Awaited<ReturnType<TestApp['app']['inject']>>;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

interface Harness extends Omit<ChannelApp, 'logger'> {
  slack: FakeSlack;
  upstream: FakeUpstream;
  state(): string;
  /** Posts a signed Events API request (timestamp defaults to now). */
  webhook(body: string, options?: { timestamp?: number; secret?: string }): Promise<LightResponse>;
  close(): Promise<void>;
}

let current: Harness | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function start(
  options: {
    mode?: 'socket' | 'events';
    fields?: Record<string, unknown>;
    adapter?: SlackOptions;
    reply?: string;
    models?: Record<string, unknown>;
  } = {},
): Promise<Harness> {
  const slack = await startFakeSlack({ botTokens: [BOT_TOKEN], appTokens: [APP_TOKEN] });
  const upstream = await startFakeUpstream({ reply: options.reply ?? REPLY });
  const modeFields =
    options.mode === 'events' ? { signing_secret: SIGNING_SECRET } : { app_token: APP_TOKEN };
  const { t, handled, logs } = await createChannelApp({
    platform: 'slack',
    models: options.models ?? upstream.modelsConfig(),
    account: { app_secret: BOT_TOKEN, api_base: slack.url, ...modeFields, ...options.fields },
    adapter: (logger) => new SlackAdapter({ ...options.adapter, logger }),
  });
  const harness: Harness = {
    t,
    slack,
    upstream,
    handled,
    logs,
    state: () => t.services.channels.status('slack', 'bot1').state,
    webhook: (body, signing = {}) => {
      const timestamp = String(signing.timestamp ?? Math.floor(Date.now() / 1000));
      return t.app.inject({
        method: 'POST',
        url: '/webhooks/slack/bot1',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': slackSignature(signing.secret ?? SIGNING_SECRET, timestamp, body),
        },
        payload: body,
      });
    },
    async close() {
      await t.close();
      await slack.close();
      await upstream.close();
      // Whatever the test did, no log line carries a token or secret.
      assert.deepEqual(
        logs.filter((line) => /SECRET|xoxb-|xapp-/.test(line)),
        [],
      );
    },
  };
  current = harness;
  await waitFor(() => harness.state() === 'connected', 'the account to connect');
  return harness;
}

/** An OpenAI-compatible upstream that streams `pieces` one every `gapMs`, as a slow model does. */
async function startSlowUpstream(pieces: string[], gapMs: number) {
  const frame = (delta: object, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'slow', object: 'chat.completion.chunk', created: 1, model: 'slow', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((request, response) => {
    void (async () => {
      for await (const _ of request) void _;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(frame({ role: 'assistant', content: '' }));
      for (const piece of pieces) {
        await pause(gapMs);
        response.write(frame({ content: piece }));
      }
      response.write(frame({}, 'stop'));
      response.end('data: [DONE]\n\n');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    models: {
      default_provider: 'slow',
      providers: { slow: { base_url: `http://127.0.0.1:${port}/v1`, model: 'slow' } },
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let nextTs = 100;
const ts = (): string => `1720000000.${String((nextTs += 1)).padStart(6, '0')}`;

/** A user's message pushed over Socket Mode; resolves when the bot acknowledged the envelope. */
async function say(h: Harness, message: Parameters<FakeSlack['messageEvent']>[0]): Promise<void> {
  await h.slack.waitForAck(h.slack.pushEvent(h.slack.messageEvent(message)));
}

const lastUserText = (upstream: FakeUpstream): unknown => {
  const messages = (upstream.requests.at(-1)?.['messages'] ?? []) as Array<{
    role: string;
    content: unknown;
  }>;
  return messages.filter((message) => message.role === 'user').at(-1)?.content;
};

describe('slack socket mode', () => {
  it('a DM is acknowledged, answered with a "thinking" message edited into the answer', async () => {
    const h = await start();
    await say(h, { channel: 'D1', user: 'U1', text: 'hi there', ts: ts() });
    await waitFor(() => h.handled.length === 1, 'the turn');
    assert.equal(h.handled[0]?.outcome, 'replied');
    const [post] = h.slack.posts;
    assert.equal(post?.channel, 'D1');
    assert.equal(post?.threadTs, undefined, 'a top-level DM is answered in the DM itself');
    assert.equal(post?.history[0], THINKING);
    assert.equal(post?.text, REPLY);
    assert.equal(h.slack.posts.length, 1);
    assert.equal(lastUserText(h.upstream), 'hi there');
    // The bot token on the Web API, the app-level token only on apps.connections.open.
    assert.ok(h.slack.callsOf('chat.postMessage').every((call) => call.token === BOT_TOKEN));
    assert.ok(h.slack.callsOf('apps.connections.open').every((call) => call.token === APP_TOKEN));
  });

  it('a channel mention is answered in a thread under it, the mention stripped; one session per thread', async () => {
    const h = await start();
    const root = ts();
    await say(h, {
      channel: 'C1',
      user: 'U1',
      text: `<@${BOT_USER_ID}> first question`,
      ts: root,
      mention: true,
    });
    await waitFor(() => h.handled.length === 1, 'the first turn');
    assert.equal(lastUserText(h.upstream), 'first question');
    assert.equal(h.slack.posts[0]?.threadTs, root);
    // A follow-up in the same thread, and a new mention elsewhere in the channel.
    await say(h, {
      channel: 'C1',
      user: 'U2',
      text: `<@${BOT_USER_ID}|bot> follow-up`,
      ts: ts(),
      threadTs: root,
      mention: true,
    });
    const other = ts();
    await say(h, {
      channel: 'C1',
      user: 'U1',
      text: `<@${BOT_USER_ID}> unrelated`,
      ts: other,
      mention: true,
    });
    await waitFor(() => h.handled.length === 3, 'three turns');
    assert.deepEqual(
      h.slack.posts.map((post) => post.threadTs),
      [root, root, other],
    );
    const key = (thread: string) => `agent:main:channel:slack:scope:thread:bot1:C1:${thread}`;
    const first = JSON.stringify(await h.t.services.sessions.load(key(root)));
    assert.match(first, /first question/);
    assert.match(first, /follow-up/);
    assert.doesNotMatch(first, /unrelated/);
    assert.match(JSON.stringify(await h.t.services.sessions.load(key(other))), /unrelated/);
  });

  it("the bot's own messages, other bots' messages and edits start no turn", async () => {
    const h = await start();
    await say(h, { channel: 'D1', user: BOT_USER_ID, text: 'my own answer', ts: ts() });
    await say(h, { channel: 'D1', user: 'U9', text: 'a bot', ts: ts(), botId: BOT_ID });
    await say(h, { channel: 'D1', user: 'U1', text: 'edited', ts: ts(), subtype: 'message_changed' });
    await say(h, { channel: 'D1', user: 'U1', text: 'deleted', ts: ts(), subtype: 'message_deleted' });
    // A channel message without a mention (message.channels) is not answered either.
    await say(h, { channel: 'C1', user: 'U1', text: 'just chatting', ts: ts() });
    await pause(300);
    assert.equal(h.upstream.requestCount, 0);
    assert.deepEqual(h.slack.posts, []);
  });

  it('envelopes without a payload (or not objects) are dropped with a warning; the connection goes on', async () => {
    const h = await start();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      h.slack.pushFrame({ type: 'events_api', envelope_id: 'no-payload' });
      h.slack.pushFrame({ type: 'events_api', envelope_id: 'no-event', payload: { type: 'event_callback' } });
      h.slack.pushFrame(null);
      await say(h, { channel: 'D1', user: 'U1', text: 'still there?', ts: ts() });
      await waitFor(() => h.handled.length === 1, 'the turn after the malformed frames');
      assert.equal(h.handled[0]?.outcome, 'replied');
      assert.equal(h.state(), 'connected');
      assert.deepEqual(rejections, []);
      assert.ok(h.logs.some((line) => line.includes('malformed Socket Mode frame')));
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a 429 on chat.update is retried after Retry-After, and the final text is never dropped', async () => {
    const h = await start();
    h.slack.failNext('chat.update', 429, 2, 1);
    await say(h, { channel: 'D1', user: 'U1', text: 'hi', ts: ts() });
    await waitFor(() => h.handled.length === 1, 'the turn', 10_000);
    const updates = h.slack.callsOf('chat.update');
    assert.deepEqual(
      updates.map((call) => call.status),
      [429, 429, ...updates.slice(2).map(() => 200)],
    );
    assert.ok(updates.length >= 3);
    // Each retry waits out the second Slack asked for.
    for (let i = 1; i < 3; i += 1) {
      const gap = (updates[i]?.at ?? 0) - (updates[i - 1]?.at ?? 0);
      assert.ok(gap >= 950, `retry ${i} came ${gap} ms after the 429`);
    }
    assert.equal(h.slack.posts[0]?.text, REPLY);
    assert.ok(h.logs.some((line) => line.startsWith('slack rate limited a call')));
  });

  it('a streamed answer edits the message at most about once a second, ending with the whole answer', async () => {
    const pieces = Array.from({ length: 12 }, (_, index) => `part${index} `);
    const slow = await startSlowUpstream(pieces, 150);
    try {
      const h = await start({ models: slow.models });
      await say(h, { channel: 'D1', user: 'U1', text: 'stream please', ts: ts() });
      await waitFor(() => h.handled.length === 1, 'the turn', 10_000);
      const updates = h.slack.callsOf('chat.update');
      assert.ok(updates.length >= 2, `${updates.length} edits`);
      for (let i = 1; i < updates.length; i += 1) {
        const gap = (updates[i]?.at ?? 0) - (updates[i - 1]?.at ?? 0);
        assert.ok(gap >= 950, `edit ${i} came ${gap} ms after the one before`);
      }
      const post = h.slack.posts[0];
      assert.equal(post?.text, pieces.join(''));
      assert.ok((post?.history.length ?? 0) >= 3, 'shown as it streamed, not only at the end');
    } finally {
      await slow.close();
    }
  });

  it('a long answer fills the edited message and continues in more messages of the thread', async () => {
    const long = `${'word '.repeat(700)}\n${'more '.repeat(700)}`.trim();
    const h = await start({ reply: long });
    const root = ts();
    await say(h, { channel: 'C1', user: 'U1', text: `<@${BOT_USER_ID}> tell me`, ts: root, mention: true });
    await waitFor(() => h.handled.length === 1, 'the turn');
    const texts = h.slack.posts.map((post) => post.text);
    assert.equal(texts.length, 2);
    assert.ok(texts.every((text) => text.length <= SLACK_TEXT_LIMIT));
    assert.equal(texts.join('\n').replace(/\s+/g, ' '), long.replace(/\s+/g, ' '));
    assert.ok(h.slack.posts.every((post) => post.threadTs === root));
  });

  it("a user's image reaches the model; it is fetched with the bot token from the files host only", async () => {
    const h = await start();
    const elsewhere = await startFakeSlack({ botTokens: [BOT_TOKEN] });
    try {
      const image = h.slack.addFile('cat.png', 'image/png', PNG);
      const foreign = elsewhere.addFile('steal.png', 'image/png', PNG);
      const doc = h.slack.addFile('notes.pdf', 'application/pdf', Buffer.from('%PDF'));
      await say(h, {
        channel: 'D1',
        user: 'U1',
        text: 'what is this?',
        ts: ts(),
        subtype: 'file_share',
        files: [image, foreign, doc],
      });
      await waitFor(() => h.handled.length === 1, 'the turn');
      const request = JSON.stringify(h.upstream.requests.at(-1));
      assert.ok(request.includes(`data:image/png;base64,${PNG.toString('base64')}`));
      assert.match(request, /\[image steal\.png could not be read\]/);
      assert.match(request, /\[attached file: notes\.pdf\]/);
      assert.deepEqual(
        h.slack.downloads.map((download) => download.token),
        [BOT_TOKEN],
      );
      assert.deepEqual(elsewhere.downloads, [], 'the token never went to another host');
    } finally {
      await elsewhere.close();
    }
  });

  it('reconnects after Slack closes the connection or asks for a refresh; status shown in GET /channels', async () => {
    const h = await start();
    const before = h.slack.connections;
    h.slack.dropConnections();
    await waitFor(() => h.slack.connections > before && h.state() === 'connected', 'a new connection');
    const list = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels' });
    assert.equal(list.json().platforms.slack.accounts.bot1.status.state, 'connected');
    await say(h, { channel: 'D1', user: 'U1', text: 'back?', ts: ts() });
    await waitFor(() => h.slack.textsIn('D1').includes(REPLY), 'an answer after reconnecting');
    // Slack asks for a new connection before recycling a server.
    const open = h.slack.connections;
    h.slack.requestRefresh();
    await waitFor(() => h.slack.connections > open && h.state() === 'connected', 'a refreshed connection');
    await say(h, { channel: 'D1', user: 'U1', text: 'still there?', ts: ts() });
    await waitFor(() => h.handled.length === 2, 'an answer after the refresh');
  });

  it("a wrong bot token or app token is an error state that names Slack's error, never the token", async () => {
    const h = await start();
    h.slack.setAppTokens(['xapp-another']);
    const update = await h.t.app.inject({
      method: 'PUT',
      url: '/api/v1/channels/slack/accounts/bot1',
      payload: { app_token: 'xapp-SECRET-wrong-app-token' },
    });
    assert.equal(update.statusCode, 200, update.body);
    await waitFor(() => h.state() === 'error', 'the error state');
    const view = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/slack/accounts/bot1' });
    assert.match(view.json().status.error, /invalid_auth/);
    assert.doesNotMatch(view.body, /SECRET/);
    assert.ok(h.logs.length > 0);
    assert.ok(
      h.logs.every((line) => !line.includes('SECRET')),
      h.logs.join('\n'),
    );
  });
});

describe('slack outbound', () => {
  const post = (h: Harness, url: string, payload: Record<string, unknown>) =>
    h.t.app.inject({ method: 'POST', url: `/api/v1/channels/slack/${url}`, payload });

  it('send, send-image and send-file (files.uploadV2) reach a channel; a user id goes to their DM', async () => {
    const h = await start();
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'chart.png'), PNG);
    await writeFile(join(workspace, 'report.txt'), 'the report');
    const text = await post(h, 'send', { chatId: 'C1', message: 'a <notice> & more' });
    assert.equal(text.statusCode, 200, text.body);
    assert.equal(text.json().messageId, h.slack.posts[0]?.ts);
    assert.equal(h.slack.posts[0]?.text, 'a &lt;notice&gt; &amp; more', 'escaped as Slack requires');
    const dm = await post(h, 'send', { chatId: 'U77', message: 'hello you' });
    assert.equal(dm.statusCode, 200, dm.body);
    assert.deepEqual(h.slack.textsIn('D77'), ['hello you']);
    const image = await post(h, 'send-image', { chatId: 'C1', imagePath: 'main:chart.png' });
    assert.equal(image.statusCode, 200, image.body);
    const file = await post(h, 'send-file', {
      chatId: 'C1',
      filePath: 'main:report.txt',
      fileName: 'q3.txt',
    });
    assert.equal(file.statusCode, 200, file.body);
    assert.deepEqual(
      h.slack.uploads.map((upload) => [
        upload.fileName,
        upload.kind,
        upload.channel,
        upload.bytes.toString('hex'),
      ]),
      [
        ['chart.png', 'image', 'C1', PNG.toString('hex')],
        ['q3.txt', 'file', 'C1', Buffer.from('the report').toString('hex')],
      ],
    );
    assert.deepEqual(
      h.slack.calls.filter((call) => call.method.startsWith('files.')).map((call) => call.method),
      [
        'files.getUploadURLExternal',
        'files.completeUploadExternal',
        'files.getUploadURLExternal',
        'files.completeUploadExternal',
      ],
    );
    const byUrl = await post(h, 'send-image', { chatId: 'C1', imageKey: 'https://example.com/cat.png' });
    assert.equal(byUrl.statusCode, 200, byUrl.body);
    assert.deepEqual(h.slack.posts.at(-1)?.blocks, [
      { type: 'image', image_url: 'https://example.com/cat.png', alt_text: 'image' },
    ]);
  });

  it('Slack errors are 502s naming the method and error code; bad keys are 400s; no token anywhere', async () => {
    const h = await start();
    const missing = await post(h, 'send', { chatId: 'CMISSING', message: 'x' });
    assert.equal(missing.statusCode, 502);
    assert.equal(missing.json().error, 'slack chat.postMessage failed: channel_not_found');
    const fileKey = await post(h, 'send-file', { chatId: 'C1', fileKey: 'F123' });
    assert.equal(fileKey.statusCode, 400);
    assert.match(fileKey.json().error, /fileKey is not supported/);
    const imageKey = await post(h, 'send-image', { chatId: 'C1', imageKey: 'http://plain.example/x.png' });
    assert.equal(imageKey.statusCode, 400);
    assert.match(imageKey.json().error, /imageKey must be an https URL/);
    h.slack.setBotTokens(['xoxb-other']);
    const revoked = await post(h, 'send', { chatId: 'C1', message: 'x' });
    assert.equal(revoked.statusCode, 502);
    assert.equal(revoked.json().error, 'slack chat.postMessage failed: invalid_auth');
    h.slack.failNext('chat.postMessage', 500, 3);
    h.slack.setBotTokens([BOT_TOKEN]);
    const down = await post(h, 'send', { chatId: 'C1', message: 'x' });
    assert.equal(down.statusCode, 502);
    assert.equal(down.json().error, 'slack chat.postMessage failed: HTTP 500');
    for (const body of [missing.body, revoked.body, down.body]) assert.doesNotMatch(body, /SECRET|xox/);
  });
});

describe('slack events api', () => {
  const event = (h: Harness, text: string) =>
    h.slack.callbackBody(h.slack.messageEvent({ channel: 'D1', user: 'U1', text, ts: ts() }));

  it('answers the URL check with its challenge, once the request is signed', async () => {
    const h = await start({ mode: 'events' });
    const body = JSON.stringify({ token: 'x', challenge: 'challenge-123', type: 'url_verification' });
    const ok = await h.webhook(body);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { challenge: 'challenge-123' });
    const forged = await h.webhook(body, { secret: 'not-the-secret' });
    assert.equal(forged.statusCode, 401);
    assert.deepEqual(forged.json(), { error: 'bad signature' });
  });

  it('an event is acknowledged at once and answered; a bad or stale signature is a 401 that starts nothing', async () => {
    const h = await start({ mode: 'events' });
    const now = Math.floor(Date.now() / 1000);
    const stale = await h.webhook(event(h, 'old'), { timestamp: now - 6 * 60 });
    assert.equal(stale.statusCode, 401);
    assert.deepEqual(stale.json(), { error: 'the timestamp is outside the 5-minute window' });
    const future = await h.webhook(event(h, 'future'), { timestamp: now + 6 * 60 });
    assert.equal(future.statusCode, 401);
    const forged = await h.webhook(event(h, 'forged'), { secret: 'guessed' });
    assert.equal(forged.statusCode, 401);
    const unsigned = await h.t.app.inject({
      method: 'POST',
      url: '/webhooks/slack/bot1',
      headers: { 'content-type': 'application/json' },
      payload: event(h, 'unsigned'),
    });
    assert.equal(unsigned.statusCode, 401);
    assert.deepEqual(unsigned.json(), { error: 'the request is not signed' });
    // A body changed after signing fails too.
    const body = event(h, 'tampered');
    const timestamp = String(now);
    const tampered = await h.t.app.inject({
      method: 'POST',
      url: '/webhooks/slack/bot1',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, body),
      },
      payload: body.replace('tampered', 'tampereD'),
    });
    assert.equal(tampered.statusCode, 401);
    await pause(200);
    assert.equal(h.upstream.requestCount, 0);
    const inWindow = await h.webhook(event(h, 'four minutes late'), { timestamp: now - 4 * 60 });
    assert.equal(inWindow.statusCode, 200);
    await waitFor(() => h.slack.textsIn('D1').includes(REPLY), 'the answer');
    assert.equal(lastUserText(h.upstream), 'four minutes late');
    assert.ok(
      h.logs.every((line) => !line.includes('SECRET')),
      h.logs.join('\n'),
    );
  });

  it('a Socket Mode account has no webhook', async () => {
    const h = await start();
    const response = await h.webhook(event(h, 'hi'));
    assert.equal(response.statusCode, 404);
  });
});

describe('slack accounts', () => {
  it('a bot token and one of app_token or signing_secret are required; swapped tokens are refused', async () => {
    const h = await start();
    const create = (payload: Record<string, unknown>) =>
      h.t.app.inject({ method: 'POST', url: '/api/v1/channels/slack/accounts', payload });
    const bare = await create({ id: 'b2', app_secret: 'xoxb-1' });
    assert.equal(bare.statusCode, 400);
    assert.match(
      bare.json().error,
      /app_token: the app-level token \(xapp-\.\.\.\) of Socket Mode is required, or signing_secret/,
    );
    const swapped = await create({ id: 'b3', app_secret: 'xapp-1', app_token: 'xoxb-1' });
    assert.equal(swapped.statusCode, 400);
    assert.match(swapped.json().error, /app_secret: this is an app-level token/);
    assert.match(swapped.json().error, /app_token: this is a bot or user token/);
    const foreign = await create({ id: 'b4', app_secret: 'xoxb-1', app_token: 'xapp-1', encrypt_key: 'k' });
    assert.equal(foreign.statusCode, 400);
    assert.match(foreign.json().error, /encrypt_key: not used by slack/);
    const events = await create({ id: 'b5', app_secret: 'xoxb-1', signing_secret: 'shh' });
    assert.equal(events.statusCode, 201, events.body);
    assert.deepEqual(events.json().secretsSet, ['signing_secret']);
    assert.doesNotMatch(events.body, /shh|xoxb/);
  });
});
