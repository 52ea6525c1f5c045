// A channel message given up after repeated attempts (every instance that took it over stalled or
// died) still gets a visible answer: the apology. The chaos run counted such a message as lost (a
// log line, nothing sent to the user).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import { APOLOGY } from '../../src/channels/inbound.ts';
import { apologizeGivenUp, readInboxEntry } from '../../src/channels/inbox.ts';
import type { ChannelAccount, ChannelAdapter } from '../../src/channels/types.ts';

describe('durable inbox: a message given up', () => {
  it('is answered with the apology in its chat', async () => {
    const sent: { chatId: string; text: string; replyTo: string | undefined }[] = [];
    const adapter = {
      sendText: async (
        _account: ChannelAccount,
        chatId: string,
        text: string,
        options?: { replyTo?: string },
      ) => {
        sent.push({ chatId, text, replyTo: options?.replyTo });
        return {};
      },
    } as unknown as ChannelAdapter;
    const account = { id: 'tg', platform: 'telegram' } as unknown as ChannelAccount;
    const entry = readInboxEntry({
      platform: 'telegram',
      accountId: 'tg',
      message: {
        platform: 'telegram',
        accountId: 'tg',
        chatId: '42',
        chatType: 'group',
        messageId: '7',
        text: 'hi',
      },
    });
    assert.ok(entry);
    await apologizeGivenUp(entry, adapter, account, silentLogger);
    assert.deepEqual(sent, [{ chatId: '42', text: APOLOGY, replyTo: '7' }]);
  });

  it('sends nothing when the account is not running here, and does not throw when the send fails', async () => {
    await apologizeGivenUp(undefined, undefined, undefined, silentLogger);
    const failing = {
      sendText: async () => {
        throw new Error('refused');
      },
    } as unknown as ChannelAdapter;
    const entry = readInboxEntry({
      platform: 'telegram',
      accountId: 'tg',
      message: { platform: 'telegram', accountId: 'tg', chatId: '42', chatType: 'dm', text: 'hi' },
    });
    await apologizeGivenUp(entry, failing, {} as ChannelAccount, silentLogger);
  });
});
