// The Discord adapter end to end against a fake Discord (REST API and gateway) on loopback: what is
// answered (DMs, mentions) and what is not (bots, unmentioned guild messages), long answers split
// into messages, replies referencing the message, typing while the agent works, pictures reaching
// the model, resume after a drop, 429 retry_after, refused intents, and the token kept out of every
// answer and log line.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { DiscordAdapter, type DiscordOptions } from '../../src/channels/discord/discord-adapter.ts';
import { DiscordRest } from '../../src/channels/discord/discord-rest.ts';
import { runGateway } from '../../src/channels/discord/gateway.ts';
import { DISCORD_TEXT_LIMIT, splitMessage } from '../../src/channels/discord/split-message.ts';
import type { ChannelAccount } from '../../src/channels/types.ts';
import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
} from '../fakes/fake-discord.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { type ChannelApp, createChannelApp, waitFor } from './channel-app.ts';

const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.discord-test-token-0123456789';
const REPLY = 'Hello from the agent.';
const DM = '700000000000000011';
const CHANNEL = '700000000000000022';
const GUILD = '600000000000000033';
const USER = '800000000000000044';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

interface Harness extends Omit<ChannelApp, 'logger'> {
  fake: FakeDiscord;
  upstream: FakeUpstream;
  close(): Promise<void>;
}

async function start(
  options: {
    account?: Record<string, unknown>;
    reply?: string;
    latencyMs?: number;
    fake?: Partial<FakeDiscordOptions>;
    adapter?: Omit<DiscordOptions, 'logger'>;
    backoff?: { baseMs: number; maxMs: number };
  } = {},
): Promise<Harness> {
  const upstream = await startFakeUpstream({
    reply: options.reply ?? REPLY,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  const fake = await startFakeDiscord({ token: TOKEN, ...options.fake });
  const { t, handled, logs } = await createChannelApp({
    platform: 'discord',
    models: upstream.modelsConfig(),
    account: { app_secret: TOKEN, app_id: fake.applicationId, api_base: fake.url, ...options.account },
    ...(options.backoff ? { backoff: options.backoff } : {}),
    adapter: (logger) => new DiscordAdapter({ ...options.adapter, logger }),
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

async function status(h: Harness): Promise<{ state: string; error?: string }> {
  const view = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/discord/accounts/bot1' });
  return view.json().status;
}

async function connected(h: Harness): Promise<void> {
  const deadline = Date.now() + 8000;
  while ((await status(h)).state !== 'connected') {
    if (Date.now() > deadline) throw new Error(`not connected: ${JSON.stringify(await status(h))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The text of the last user message the model received. */
function modelInput(upstream: FakeUpstream, index = -1): unknown {
  const messages = upstream.requests.at(index)?.['messages'] as Array<{ role: string; content: unknown }>;
  return messages.filter((message) => message.role === 'user').at(-1)?.content;
}

describe('discord: splitting answers', () => {
  it('splits at line ends into messages of at most 2,000 characters, losing nothing', () => {
    const text = Array.from({ length: 400 }, (_, index) => `line ${index}: ${'x'.repeat(index % 30)}`).join(
      '\n',
    );
    const pieces = splitMessage(text);
    assert.ok(pieces.length >= 4);
    for (const piece of pieces) assert.ok(piece.length <= DISCORD_TEXT_LIMIT);
    assert.equal(pieces.join(''), text);
    for (const piece of pieces.slice(0, -1)) assert.ok(piece.endsWith('\n'), 'each break is at a line end');
  });

  it('moves a code block whole into the next message when it fits there', () => {
    const block = `\`\`\`js\n${'let a = 1;\n'.repeat(100)}\`\`\`\n`;
    const text = `${'intro words '.repeat(100)}\n${block}after`;
    const pieces = splitMessage(text);
    assert.equal(pieces.length, 2);
    assert.ok(pieces[1]?.startsWith('```js\n') && pieces[1].includes('```\nafter'));
    assert.equal(pieces.join(''), text);
  });

  it('closes and reopens a code block too long for one message, with its language', () => {
    const text = `\`\`\`python\n${'print("hello world")\n'.repeat(250)}\`\`\``;
    const pieces = splitMessage(text);
    assert.ok(pieces.length >= 3);
    for (const piece of pieces) {
      assert.ok(piece.length <= DISCORD_TEXT_LIMIT);
      assert.ok(piece.startsWith('```python\n'), 'every piece opens the block');
      assert.ok(piece.trimEnd().endsWith('```'), 'every piece closes it');
    }
    const rebuilt = pieces.map((piece, index) => (index === 0 ? piece : piece.slice('```python\n'.length)));
    const withoutAdded = rebuilt.map((piece, index) =>
      index < pieces.length - 1 ? piece.slice(0, -'```'.length) : piece,
    );
    assert.equal(withoutAdded.join(''), text);
  });

  it('cuts a line longer than a message at a space, or anywhere but inside a surrogate pair', () => {
    const words = 'word '.repeat(900);
    assert.equal(splitMessage(words).join(''), words);
    const emoji = '😀'.repeat(1500);
    const pieces = splitMessage(emoji);
    assert.equal(pieces.join(''), emoji);
    for (const piece of pieces)
      assert.ok(!/^[\udc00-\udfff]/.test(piece) && piece.length <= DISCORD_TEXT_LIMIT);
  });
});

describe('discord: inbound', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('a DM is answered in the DM, referencing the message, in the session of the sender', async () => {
    h = await start();
    await connected(h);
    const id = h.fake.userSays({ channelId: DM, authorId: USER, content: 'hello there' });
    await waitFor(() => h.handled.length === 1, 'the message handled');
    assert.ok(h.fake.textsIn(DM).includes(REPLY));
    const [sent] = h.fake.sent;
    assert.equal(sent?.replyTo, id);
    assert.deepEqual(sent?.allowedMentions, { parse: ['users'], replied_user: true });
    assert.equal(h.handled[0]?.message.chatType, 'dm');
    const key = `agent:main:channel:discord:scope:per_account_channel_peer:bot1:${USER}`;
    assert.match(JSON.stringify(await h.t.services.sessions.load(key)), /hello there/);
  });

  it('in a guild, only a mention is answered, without the mention in the text', async () => {
    h = await start();
    await connected(h);
    h.fake.userSays({ channelId: CHANNEL, guildId: GUILD, authorId: USER, content: 'just chatting' });
    const id = h.fake.userSays({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: USER,
      content: `<@${h.fake.botUserId}> what time is it?`,
      mentionsBot: true,
    });
    await waitFor(() => h.handled.length === 2, 'both messages handled');
    assert.ok(h.fake.textsIn(CHANNEL).includes(REPLY));
    assert.equal(h.upstream.requestCount, 1);
    assert.equal(JSON.stringify(modelInput(h.upstream)).includes('what time is it?'), true);
    assert.doesNotMatch(JSON.stringify(modelInput(h.upstream)), /<@/);
    assert.equal(h.fake.sent[0]?.replyTo, id);
    assert.deepEqual(
      h.handled.map((entry) => entry.outcome),
      ['ignored', 'replied'],
    );
  });

  it('with group_require_mention false, every guild message is answered', async () => {
    h = await start({ account: { group_require_mention: false } });
    await connected(h);
    h.fake.userSays({ channelId: CHANNEL, guildId: GUILD, authorId: USER, content: 'no mention' });
    await waitFor(() => h.fake.textsIn(CHANNEL).includes(REPLY), 'the answer');
  });

  it('messages of bots, its own included, and system messages are ignored', async () => {
    h = await start();
    await connected(h);
    h.fake.userSays({ channelId: DM, authorId: '800000000000000999', content: 'beep', bot: true });
    h.fake.userSays({ channelId: DM, authorId: h.fake.botUserId, content: 'my own words' });
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'pinned a message', type: 6 });
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'a person' });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer to the person');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(h.upstream.requestCount, 1);
    assert.equal(h.handled.length, 1);
  });

  it('an answer over 2,000 characters arrives as several messages; only the first references', async () => {
    const long = Array.from({ length: 150 }, (_, index) => `Paragraph ${index} of the answer.`).join('\n');
    h = await start({ reply: long });
    await connected(h);
    const id = h.fake.userSays({ channelId: DM, authorId: USER, content: 'tell me everything' });
    await waitFor(() => h.handled.length === 1, 'the answer');
    const sent = h.fake.sent.filter((entry) => entry.channelId === DM);
    assert.ok(sent.length >= 3, `${sent.length} messages`);
    for (const entry of sent) assert.ok(entry.content.length <= DISCORD_TEXT_LIMIT);
    assert.equal(sent.map((entry) => entry.content).join(''), long);
    assert.deepEqual(
      sent.map((entry) => entry.replyTo),
      [id, ...sent.slice(1).map(() => undefined)],
    );
  });

  it('shows typing while the agent works, renewed, and stops when the answer is sent', async () => {
    h = await start({ latencyMs: 700, adapter: { typingIntervalMs: 150 } });
    await connected(h);
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'think hard' });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer');
    const answeredAt = h.fake.sent[0]?.at ?? 0;
    const typing = h.fake.typing.filter((entry) => entry.channelId === DM);
    assert.ok(typing.length >= 3, `${typing.length} typing calls`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(h.fake.typing.filter((entry) => entry.at > answeredAt + 50).length, 0);
  });

  it("a picture reaches the model as an image; one off Discord's CDN does not", async () => {
    h = await start();
    await connected(h);
    h.fake.userSays({
      channelId: DM,
      authorId: USER,
      content: 'what is this?',
      attachments: [
        { filename: 'photo.png', bytes: PNG, contentType: 'image/png' },
        { filename: 'elsewhere.png', bytes: PNG, url: 'http://127.0.0.2:1/elsewhere.png' },
        { filename: 'notes.txt', bytes: Buffer.from('text'), contentType: 'text/plain' },
      ],
    });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer');
    const content = JSON.stringify(modelInput(h.upstream));
    assert.ok(content.includes(`data:image/png;base64,${PNG.toString('base64')}`));
    assert.equal(content.match(/data:image/g)?.length, 1);
    assert.ok(h.logs.some((line) => line.startsWith('discord picture skipped')));
  });
});

describe('discord: connection', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('identifies with the intents, heartbeats, and resumes after a drop, replaying what it missed', async () => {
    h = await start({ fake: { heartbeatIntervalMs: 100 } });
    await connected(h);
    const identify = h.fake.received.find((frame) => frame.op === 2)?.d as { intents: number };
    // Guilds, GuildMessages, DirectMessages, MessageContent.
    assert.equal(identify.intents, 1 | (1 << 9) | (1 << 12) | (1 << 15));
    await waitFor(() => h.fake.counts.heartbeats >= 2, 'heartbeats');
    h.fake.dropConnections('cut');
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'sent while you were away' });
    await waitFor(() => h.fake.counts.resumes === 1, 'a resume');
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the missed message answered');
    assert.equal(h.fake.counts.identifies, 1);
    await connected(h);
  });

  it('a connection whose heartbeats are not acknowledged is replaced and resumed', async () => {
    h = await start({ fake: { heartbeatIntervalMs: 80 } });
    await connected(h);
    h.fake.ackHeartbeats(false);
    await waitFor(() => h.fake.counts.resumes >= 1, 'a resume after the zombie connection');
    h.fake.ackHeartbeats(true);
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'still there?' });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer');
  });

  it('an invalid session on resume identifies anew', async () => {
    h = await start();
    await connected(h);
    // 1000 ends the session on Discord's side: the resume is refused, and a new IDENTIFY follows.
    h.fake.dropConnections(1000);
    await waitFor(() => h.fake.counts.identifies === 2, 'a second identify');
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'new session?' });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer');
  });

  it('a missing Message Content intent shows an error saying how to enable it', async () => {
    // A long back-off keeps the error state shown between attempts.
    h = await start({ fake: { messageContentIntent: false }, backoff: { baseMs: 4000, maxMs: 4000 } });
    await waitFor(() => h.fake.counts.connections >= 1, 'a connection');
    const deadline = Date.now() + 5000;
    let current = await status(h);
    while (current.state !== 'error' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      current = await status(h);
    }
    assert.equal(current.state, 'error', JSON.stringify(current));
    assert.equal(h.fake.counts.identifies, 0);
    assert.match(current.error ?? '', /Message Content intent.*developer portal/);
  });

  it('GET /channels shows the discord account and its connection state', async () => {
    h = await start();
    await connected(h);
    const response = await h.t.app.inject({ method: 'GET', url: '/api/v1/channels' });
    const discord = response.json().platforms.discord;
    assert.equal(discord.accounts.bot1.status.state, 'connected');
    assert.equal(discord.accounts.bot1.hasSecret, true);
    assert.ok(!response.body.includes(TOKEN));
  });
});

describe('discord: outbound and rate limits', () => {
  let h: Harness;
  afterEach(() => h?.close());

  const post = (url: string, payload: object) =>
    h.t.app.inject({ method: 'POST', url: `/api/v1/channels/discord/${url}`, payload });

  it('a 429 is waited out for retry_after and the message is sent once', async () => {
    h = await start();
    await connected(h);
    h.fake.rateLimitNext(0.4, 1, '/messages');
    const started = Date.now();
    const response = await post('send', { chatId: CHANNEL, message: 'after the limit' });
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(Date.now() - started >= 400, 'waited retry_after');
    assert.deepEqual(h.fake.textsIn(CHANNEL), ['after the limit']);
    const tries = h.fake.requests.filter((entry) => entry.path === `/channels/${CHANNEL}/messages`);
    assert.deepEqual(
      tries.map((entry) => entry.status),
      [429, 200],
    );
  });

  it('a retry_after longer than the adapter waits is a 502 naming the wait', async () => {
    h = await start({ adapter: { maxRateLimitWaitMs: 1000 } });
    await connected(h);
    h.fake.rateLimitNext(30, 1, '/messages');
    const response = await post('send', { chatId: CHANNEL, message: 'too soon' });
    assert.equal(response.statusCode, 502);
    assert.match(response.json().error, /rate limited by Discord; retry after 30 s/);
  });

  it('send-image and send-file upload multipart attachments; keys must be https URLs', async () => {
    h = await start();
    await connected(h);
    const workspace = await h.t.services.workspace('main');
    await writeFile(join(workspace, 'chart.png'), PNG);
    await writeFile(join(workspace, 'report.txt'), 'the report');
    const image = await post('send-image', { chatId: CHANNEL, imagePath: 'main:chart.png' });
    assert.equal(image.statusCode, 200, image.body);
    const file = await post('send-file', {
      chatId: CHANNEL,
      filePath: 'main:report.txt',
      fileName: 'q3.txt',
    });
    assert.equal(file.statusCode, 200, file.body);
    const [sentImage, sentFile] = h.fake.sent;
    assert.equal(image.json().messageId, sentImage?.id);
    assert.deepEqual(
      [sentImage?.files[0]?.name, sentImage?.files[0]?.contentType, sentImage?.files[0]?.bytes.equals(PNG)],
      ['chart.png', 'image/png', true],
    );
    assert.deepEqual(
      [sentFile?.files[0]?.name, sentFile?.files[0]?.bytes.toString()],
      ['q3.txt', 'the report'],
    );
    const byUrl = await post('send-image', { chatId: CHANNEL, imageKey: 'https://example.com/a.png' });
    assert.equal(byUrl.statusCode, 200, byUrl.body);
    assert.deepEqual(h.fake.sent.at(-1)?.embeds, [{ image: { url: 'https://example.com/a.png' } }]);
    const badKey = await post('send-image', { chatId: CHANNEL, imageKey: 'abc123' });
    assert.equal(badKey.statusCode, 400);
    assert.match(badKey.json().error, /imageKey: on discord, a key is the https URL/);
  });

  it('a chat id that is not a channel id is a 400; an unknown one a 502 from Discord', async () => {
    h = await start();
    await connected(h);
    const bad = await post('send', { chatId: '../users/@me', message: 'x' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /chatId: a Discord channel id is a number/);
    h.fake.deleteChannel(CHANNEL);
    const gone = await post('send', { chatId: CHANNEL, message: 'x' });
    assert.equal(gone.statusCode, 502);
    assert.equal(gone.json().error, 'discord POST /channels/{id}/messages failed (404): Unknown Channel');
  });

  it("account fields: the token is required, app_id is a snowflake, other platforms' fields are refused", async () => {
    h = await start();
    const create = (payload: object) =>
      h.t.app.inject({ method: 'POST', url: '/api/v1/channels/discord/accounts', payload });
    const missing = await create({ id: 'b2' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /app_secret: the bot token is required/);
    const badId = await create({ id: 'b3', app_secret: 'x.y.z', app_id: 'my-app' });
    assert.equal(badId.statusCode, 400);
    assert.match(badId.json().error, /app_id: the application id is a number/);
    const foreign = await create({ id: 'b4', app_secret: 'x.y.z', signing_secret: 's' });
    assert.equal(foreign.statusCode, 400);
    assert.match(foreign.json().error, /signing_secret: not used by discord/);
  });

  it('the token appears in no answer and no log line, even when Discord refuses it', async () => {
    h = await start();
    await connected(h);
    h.fake.userSays({ channelId: DM, authorId: USER, content: 'hi' });
    await waitFor(() => h.fake.textsIn(DM).includes(REPLY), 'the answer');
    h.fake.setToken('another-token.value');
    h.fake.dropConnections(4004);
    await waitFor(() => h.logs.some((line) => line.includes('401')), 'the refusal logged');
    const answers = [
      await post('send', { chatId: CHANNEL, message: 'refused' }),
      await h.t.app.inject({ method: 'GET', url: '/api/v1/channels' }),
      await h.t.app.inject({ method: 'GET', url: '/api/v1/channels/discord/accounts/bot1' }),
    ];
    assert.equal(answers[0]?.statusCode, 502);
    assert.match(answers[0]?.json().error, /the bot token was refused/);
    assert.match(answers[2]?.json().status.error ?? '', /the bot token was refused/);
    for (const answer of answers) assert.ok(!answer?.body.includes(TOKEN));
    assert.ok(h.logs.length > 0);
    for (const line of h.logs) assert.ok(!line.includes(TOKEN), line);
  });
});

describe('discord: gateway handlers that throw', () => {
  it('a READY or MESSAGE_CREATE a handler cannot read is skipped and reported, never an unhandled rejection', async () => {
    const fake = await startFakeDiscord({ token: TOKEN });
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const controller = new AbortController();
    try {
      const account = {
        platform: 'discord',
        id: 'bot1',
        config: { enabled: true, app_secret: TOKEN, api_base: fake.url },
      } as unknown as ChannelAccount;
      const failures: unknown[] = [];
      let dispatched = 0;
      const running = runGateway(
        TOKEN,
        await new DiscordRest().client(account),
        {},
        {
          // As the adapter's handlers would on a READY without `user` or a message without `author`.
          ready: () => {
            throw new TypeError("Cannot read properties of undefined (reading 'id')");
          },
          resumed: () => undefined,
          dispatch: () => {
            dispatched += 1;
            throw new TypeError("Cannot read properties of undefined (reading 'author')");
          },
          failed: (error) => void failures.push(error),
        },
        controller.signal,
      );
      await waitFor(() => fake.live() === 1, 'the session to be ready');
      fake.userSays({ channelId: DM, authorId: USER, content: 'one' });
      fake.userSays({ channelId: DM, authorId: USER, content: 'two' });
      // READY is dispatched too: three dispatches, each handler's throw reported.
      await waitFor(() => dispatched === 3, 'every event to reach the handler');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(failures.length, 4);
      assert.equal(fake.live(), 1, 'the connection is still up');
      controller.abort();
      await running;
      assert.deepEqual(rejections, []);
    } finally {
      controller.abort();
      process.off('unhandledRejection', onRejection);
      await fake.close();
    }
  });
});
