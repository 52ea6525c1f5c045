// One contract for every channel adapter: each platform's test file calls channelContract with a
// driver of its fake platform, and the same cases run against it. A platform that cannot do a case
// says why in its driver (`cannot`), and the suite records that instead of skipping silently.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { Platform } from '../../src/config/schema.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import type { ServiceOptions } from '../../src/services.ts';

export interface UserMessage {
  chatId: string;
  chatType: 'dm' | 'group';
  senderId: string;
  text: string;
  messageId: string;
}

export type ContractCase = 'dedupe' | 'reconnect' | 'secret-change' | 'send-image' | 'send-file';

export interface ChannelDriver {
  platform: Platform;
  /** Fields of a working account against the fake (credentials, api_base, ...). */
  accountFields(): Record<string, unknown>;
  /** Makes the fake accept only a new secret; returns the account fields that carry it. */
  rotateSecret(): Record<string, unknown>;
  /** Service options that point the adapter at the fake (or replace it with a fake adapter). */
  channelOptions(): ServiceOptions['channels'];
  /** A user of the platform sends a message to the bot. */
  userSays(message: UserMessage): Promise<void>;
  /** The texts the bot shows in a chat, oldest first (a streamed reply as last edited). */
  botTexts(chatId: string): string[];
  /** Media the bot sent to a chat. */
  botMedia(chatId: string): Array<'image' | 'file'>;
  /** The platform drops the connection (a restart). */
  dropConnection(): Promise<void>;
  /** Connection attempts the fake has seen. */
  connectAttempts(): number;
  /** Chat ids valid for outbound sends of each kind. */
  chats: { dm: string; group: string };
  /** The platform's id of the user who sends the DMs (the session's peer). */
  dmSender: string;
  cannot?: Partial<Record<ContractCase, string>>;
  /** Called with the running app (a webhook platform's fake posts its callbacks through it). */
  attach?(app: TestApp): void;
  close(): Promise<void>;
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const REPLY = 'Hello from the agent.';

export function channelContract(name: string, makeDriver: () => Promise<ChannelDriver>): void {
  describe(`channel contract: ${name}`, () => {
    let driver: ChannelDriver | undefined;
    let upstream: FakeUpstream | undefined;
    let t: TestApp | undefined;
    afterEach(async () => {
      await t?.close();
      await upstream?.close();
      await driver?.close();
      t = undefined;
      upstream = undefined;
      driver = undefined;
    });

    async function setUp(fields: Record<string, unknown> = {}): Promise<{ d: ChannelDriver; app: TestApp }> {
      const d = await makeDriver();
      driver = d;
      upstream = await startFakeUpstream({ reply: REPLY });
      t = await createTestApp({
        config: {
          models: upstream.modelsConfig(),
          channels: {
            [d.platform]: { enabled: true, accounts: { bot1: { ...d.accountFields(), ...fields } } },
          },
        },
        services: { channels: { ...d.channelOptions(), backoff: { baseMs: 20, maxMs: 100 } } },
      });
      d.attach?.(t);
      await until(
        async () => (await status(t as TestApp, d.platform)) === 'connected',
        'the account to connect',
      );
      return { d, app: t };
    }

    async function status(app: TestApp, platform: Platform, id = 'bot1'): Promise<string | undefined> {
      const response = await app.app.inject({
        method: 'GET',
        url: `/api/v1/channels/${platform}/accounts/${id}`,
      });
      return response.statusCode === 200 ? (response.json().status.state as string) : undefined;
    }

    const dm = (d: ChannelDriver, text: string, messageId: string): UserMessage => ({
      chatId: d.chats.dm,
      chatType: 'dm',
      senderId: 'user-1',
      text,
      messageId,
    });

    it('a DM gets one agent turn in the peer session and the answer in the same chat', async () => {
      const { d, app } = await setUp();
      await d.userSays(dm(d, 'hello bot', '1001'));
      await until(() => d.botTexts(d.chats.dm).includes(REPLY), 'the answer in the chat');
      assert.equal(upstream?.requestCount, 1);
      const key = `agent:main:channel:${d.platform}:scope:per_account_channel_peer:bot1:${d.dmSender}`;
      // The history is stored when the turn ends, which may be after the answer shows (on Postgres).
      let history = '';
      await until(async () => {
        history = JSON.stringify(await app.services.sessions.load(key));
        return history.includes(REPLY);
      }, 'the turn in the session history');
      assert.match(history, /hello bot/);
      assert.match(history, new RegExp(REPLY));
    });

    it('policies: a disabled DM policy and a group outside the allowlist get no turn', async () => {
      const { d } = await setUp({
        dm_policy: 'disabled',
        group_policy: 'allowlist',
        allow_from: ['allowed-group'],
      });
      await d.userSays(dm(d, 'hello?', '2001'));
      await d.userSays({
        chatId: d.chats.group,
        chatType: 'group',
        senderId: 'user-2',
        text: '@bot hi',
        messageId: '2002',
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(upstream?.requestCount, 0);
      assert.deepEqual(d.botTexts(d.chats.dm), []);
    });

    it('a redelivered message starts no second turn', async (context) => {
      const { d } = await setUp();
      if (d.cannot?.dedupe) return context.diagnostic(`${name} cannot redeliver: ${d.cannot.dedupe}`);
      await d.userSays(dm(d, 'once only', '3001'));
      await d.userSays(dm(d, 'once only', '3001'));
      await d.userSays(dm(d, 'a new one', '3002'));
      await until(() => (upstream?.requestCount ?? 0) >= 2, 'two turns');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(upstream?.requestCount, 2);
    });

    it('outbound send, send-image and send-file reach the chat', async (context) => {
      const { d, app } = await setUp();
      const send = await app.app.inject({
        method: 'POST',
        url: `/api/v1/channels/${d.platform}/send`,
        payload: { chatId: d.chats.group, message: 'scheduled notice', accountId: 'bot1' },
      });
      assert.equal(send.statusCode, 200, send.body);
      await until(() => d.botTexts(d.chats.group).includes('scheduled notice'), 'the sent text');
      const workspace = await app.services.workspace('main');
      await writeFile(join(workspace, 'chart.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
      await writeFile(join(workspace, 'report.txt'), 'the report');
      for (const [kind, url, payload] of [
        ['image', 'send-image', { imagePath: 'main:chart.png' }],
        ['file', 'send-file', { filePath: 'main:report.txt' }],
      ] as const) {
        const reason = d.cannot?.[kind === 'image' ? 'send-image' : 'send-file'];
        if (reason) {
          context.diagnostic(`${name} cannot ${url}: ${reason}`);
          continue;
        }
        const response = await app.app.inject({
          method: 'POST',
          url: `/api/v1/channels/${d.platform}/${url}`,
          payload: { chatId: d.chats.group, accountId: 'bot1', ...payload },
        });
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        await until(() => d.botMedia(d.chats.group).includes(kind), `the ${kind}`);
      }
    });

    it('reconnects after the platform drops the connection, and answers again', async (context) => {
      const { d, app } = await setUp();
      if (d.cannot?.reconnect) return context.diagnostic(`${name}: ${d.cannot.reconnect}`);
      const before = d.connectAttempts();
      await d.dropConnection();
      await until(() => d.connectAttempts() > before, 'a new connection');
      await until(async () => (await status(app, d.platform)) === 'connected', 'connected again');
      await d.userSays(dm(d, 'are you back?', '5001'));
      await until(() => d.botTexts(d.chats.dm).includes(REPLY), 'the answer after reconnecting');
    });

    it('a changed secret reconnects with it; a wrong one shows an error state', async (context) => {
      const { d, app } = await setUp();
      if (d.cannot?.['secret-change']) return context.diagnostic(`${name}: ${d.cannot['secret-change']}`);
      const fields = d.rotateSecret();
      await until(
        async () => (await status(app, d.platform)) !== 'connected',
        'the old secret to fail',
        2_000,
      ).catch(() => undefined);
      const update = await app.app.inject({
        method: 'PUT',
        url: `/api/v1/channels/${d.platform}/accounts/bot1`,
        payload: fields,
      });
      assert.equal(update.statusCode, 200, update.body);
      assert.doesNotMatch(update.body, new RegExp(String(Object.values(fields)[0])));
      await until(
        async () => (await status(app, d.platform)) === 'connected',
        'connected with the new secret',
      );
      await d.userSays(dm(d, 'new secret?', '6001'));
      await until(() => d.botTexts(d.chats.dm).includes(REPLY), 'an answer with the new secret');
      const wrong = Object.fromEntries(Object.keys(fields).map((key) => [key, 'wrong-secret-value-000']));
      await app.app.inject({
        method: 'PUT',
        url: `/api/v1/channels/${d.platform}/accounts/bot1`,
        payload: wrong,
      });
      await until(async () => (await status(app, d.platform)) === 'error', 'the error state');
      const view = (
        await app.app.inject({ method: 'GET', url: `/api/v1/channels/${d.platform}/accounts/bot1` })
      ).json();
      assert.ok(typeof view.status.error === 'string' && view.status.error.length > 0);
      assert.doesNotMatch(JSON.stringify(view), /wrong-secret-value-000/);
    });

    it('a disabled account disconnects and answers nothing; a deleted one is gone', async () => {
      const { d, app } = await setUp();
      const off = await app.app.inject({
        method: 'PUT',
        url: `/api/v1/channels/${d.platform}/accounts/bot1`,
        payload: { enabled: false },
      });
      assert.equal(off.statusCode, 200, off.body);
      await until(async () => (await status(app, d.platform)) === 'disabled', 'the disabled state');
      await until(() => app.services.channels.running().length === 0, 'the connection to close');
      await d.userSays(dm(d, 'anyone?', '7001')).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(upstream?.requestCount, 0);
      const removed = await app.app.inject({
        method: 'DELETE',
        url: `/api/v1/channels/${d.platform}/accounts/bot1`,
      });
      assert.equal(removed.statusCode, 200);
      assert.equal(await status(app, d.platform), undefined);
    });
  });
}
