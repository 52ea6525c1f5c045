// Durable inbound, single mode: the instance is killed (-9) with the answer computed and recorded but
// not yet sent, and killed once it is sent. Recorded before the send, the answer is sent by the
// restarted instance without a second turn (one model call per message), with the message's
// idempotency key (a Discord nonce); sent, the message was marked answered together with the send,
// so the restarted instance sends nothing more. Each message gets exactly one answer, on Telegram
// (no idempotency key) as on Discord.
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

describe('durable inbound, single mode: kill -9 just before and just after the reply', () => {
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

  it('killed before the send: the recorded answer is sent, no second turn; killed after it: nothing more', async () => {
    // 1. Discord, killed with the answer recorded and not yet sent.
    let proc: Proc = await place.start('one', { AGENT_SERVICE_CRASH_AT: 'inbox-before-send:K-PRE-D' });
    await connected();
    discord.userSays({ channelId: DM, authorId: USER, content: 'K-PRE-D hello' });
    await proc.exited;
    assert.deepEqual(discordAnswers('K-PRE-D'), [], 'killed before the send');
    assert.equal(model.calls, 1);

    // 2. Restarted: the recorded answer is sent (with the message's nonce), the turn is not run again.
    // Telegram, killed once the answer is sent and marked.
    proc = await place.start('two', { AGENT_SERVICE_CRASH_AT: 'inbox-after-send:K-POST-T' });
    await until(() => discordAnswers('K-PRE-D').length === 1, 30_000, 'the recorded answer sent');
    assert.equal(model.calls, 1, 'the turn was not run again');
    const keyed = discord.sent.find((sent) => sent.content.includes('K-PRE-D'));
    assert.match(keyed?.nonce ?? '', /^[\w-]{25}$/, 'sent with a nonce');
    await connected();
    telegram.pushMessage({ chatId: TELEGRAM_CHAT, text: 'K-POST-T hi' });
    await proc.exited;
    assert.deepEqual(telegramAnswers('K-POST-T'), ['Answer to: K-POST-T hi']);
    assert.equal(model.calls, 2);

    // 3. Telegram, killed before the send.
    proc = await place.start('three', { AGENT_SERVICE_CRASH_AT: 'inbox-before-send:K-PRE-T' });
    await connected();
    telegram.pushMessage({ chatId: TELEGRAM_CHAT, text: 'K-PRE-T hi' });
    await proc.exited;
    assert.deepEqual(telegramAnswers('K-PRE-T'), []);
    assert.equal(model.calls, 3);

    // 4. Discord, killed after the send.
    proc = await place.start('four', { AGENT_SERVICE_CRASH_AT: 'inbox-after-send:K-POST-D' });
    await until(() => telegramAnswers('K-PRE-T').length === 1, 30_000, 'the recorded answer sent');
    assert.equal(model.calls, 3, 'the turn was not run again');
    await connected();
    discord.userSays({ channelId: DM, authorId: USER, content: 'K-POST-D hello' });
    await proc.exited;
    assert.deepEqual(discordAnswers('K-POST-D'), ['Answer to: K-POST-D hello']);
    assert.equal(model.calls, 4);

    // 5. The next message of each chat is answered once, after the restart's pick-up of unfinished
    // work (at start, in single mode); every message above has exactly one answer.
    proc = await place.start('five');
    await connected();
    discord.userSays({ channelId: DM, authorId: USER, content: 'K-NEXT-D' });
    telegram.pushMessage({ chatId: TELEGRAM_CHAT, text: 'K-NEXT-T' });
    await until(
      () => discordAnswers('K-NEXT-D').length === 1 && telegramAnswers('K-NEXT-T').length === 1,
      30_000,
      'the next messages answered',
    );
    assert.equal(model.calls, 6);
    for (const marker of ['K-PRE-D', 'K-POST-D']) assert.equal(discordAnswers(marker).length, 1, marker);
    for (const marker of ['K-PRE-T', 'K-POST-T']) assert.equal(telegramAnswers(marker).length, 1, marker);
    await kill9(proc);
  });
});
