// Durable inbound, single mode: the instance is killed (-9) after a reply went out and before the
// message was marked answered, the one moment at which an instance cannot know on restart whether
// its answer landed. The answer was recorded with the confirmation just before the send, so the
// restarted instance does not run the turn again (one model call per message): it sends the same
// answer again with the same idempotency key. Discord (nonce with enforce_nonce) drops the repeat,
// so the chat shows one answer; Telegram's sendMessage has no such key, so the same answer is sent a
// second time (the documented limit of that platform: never a different answer, never none).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFaultModel, type FaultModel } from '../fakes/fault-model.ts';
import { kill9, site, until, type Proc, type Site } from './chaos-harness.ts';

const TELEGRAM_TOKEN = '123456:kill-after-send';
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.kill-after-send-token-0123456789';
const DM = '700000000000000011';
const USER = '800000000000000044';
const TELEGRAM_CHAT = 4242;

describe('durable inbound, single mode: kill -9 between the reply and the mark', () => {
  let model: FaultModel;
  let discord: FakeDiscord;
  let telegram: FakeTelegram;
  let place: Site;

  before(async () => {
    model = await startFaultModel({ latencyMs: 50 });
    discord = await startFakeDiscord({ token: DISCORD_TOKEN });
    telegram = await startFakeTelegram({ tokens: [TELEGRAM_TOKEN], maxHoldMs: 500 });
    place = await site({
      server: { host: '127.0.0.1', shutdown_timeout_ms: 5_000 },
      models: model.modelsConfig(),
      channels: {
        discord: {
          enabled: true,
          accounts: {
            d1: {
              enabled: true,
              app_secret: DISCORD_TOKEN,
              app_id: discord.applicationId,
              api_base: discord.url,
            },
          },
        },
        telegram: {
          enabled: true,
          accounts: { tg: { enabled: true, app_secret: TELEGRAM_TOKEN, api_base: telegram.url } },
        },
      },
    });
  });
  after(async () => {
    await place?.close();
    await discord?.close();
    await telegram?.close();
    await model?.close();
  });

  const discordAnswers = (marker: string): string[] =>
    discord.textsIn(DM).filter((text) => text.includes(`Answer to: ${marker}`));
  const discordPosts = (): number =>
    discord.requests.filter(
      (request) => request.method === 'POST' && request.path === `/channels/${DM}/messages`,
    ).length;
  const telegramAnswers = (marker: string): string[] =>
    telegram
      .callsOf('sendMessage')
      .filter(
        (call) =>
          call.params['chat_id'] === TELEGRAM_CHAT || call.params['chat_id'] === String(TELEGRAM_CHAT),
      )
      .map((call) => String(call.params['text']))
      .filter((text) => text.includes(`Answer to: ${marker}`));
  const connected = async (): Promise<void> => {
    await until(() => discord.live() > 0 && telegram.openPolls > 0, 30_000, 'both accounts connected');
  };

  it('the recorded answer is sent again, not a new turn; Discord shows it once', async () => {
    let proc: Proc = await place.start('one', { AGENT_SERVICE_CRASH_AT: 'inbox-after-send:K-SENT-D' });
    await connected();
    discord.userSays({ channelId: DM, authorId: USER, content: 'K-SENT-D hello' });
    await proc.exited;
    assert.deepEqual(discordAnswers('K-SENT-D'), ['Answer to: K-SENT-D hello'], 'answered, then killed');
    assert.equal(model.calls, 1);

    // Restarted: the unfinished message is taken up; its answer goes out again with the same nonce.
    proc = await place.start('two', { AGENT_SERVICE_CRASH_AT: 'inbox-after-send:K-SENT-T' });
    await until(() => discordPosts() === 2, 30_000, 'the recorded answer sent again');
    assert.deepEqual(discordAnswers('K-SENT-D'), ['Answer to: K-SENT-D hello'], 'Discord dropped the repeat');
    assert.equal(model.calls, 1, 'the turn was not run again');

    // Telegram: killed the same way.
    await connected();
    telegram.pushMessage({ chatId: TELEGRAM_CHAT, text: 'K-SENT-T hi' });
    await proc.exited;
    assert.deepEqual(telegramAnswers('K-SENT-T'), ['Answer to: K-SENT-T hi']);
    assert.equal(model.calls, 2);
    proc = await place.start('three');
    await until(() => telegramAnswers('K-SENT-T').length === 2, 30_000, 'the recorded answer sent again');
    assert.deepEqual(telegramAnswers('K-SENT-T'), ['Answer to: K-SENT-T hi', 'Answer to: K-SENT-T hi']);
    assert.equal(model.calls, 2, 'the turn was not run again');

    // Marked answered now: nothing more is sent, and the next message of each chat is answered once.
    await connected();
    discord.userSays({ channelId: DM, authorId: USER, content: 'K-NEXT-D' });
    telegram.pushMessage({ chatId: TELEGRAM_CHAT, text: 'K-NEXT-T' });
    await until(
      () => discordAnswers('K-NEXT-D').length === 1 && telegramAnswers('K-NEXT-T').length === 1,
      30_000,
      'the next messages answered',
    );
    assert.equal(model.calls, 4);
    assert.equal(discordAnswers('K-SENT-D').length, 1);
    assert.equal(telegramAnswers('K-SENT-T').length, 2);
    await kill9(proc);
  });
});
