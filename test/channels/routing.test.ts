// Unit tests of the channel core: policies, binding resolution, text splitting, token scrubbing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountSchema, type BindingConfig } from '../../src/config/schema.ts';
import { checkPolicy, resolveAgent } from '../../src/channels/routing.ts';
import { toInbound } from '../../src/channels/telegram/telegram-adapter.ts';
import { splitText } from '../../src/channels/split-text.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { safeFileName } from '../../src/channels/files.ts';

const dm = (senderId: string, accountId = 'bot1'): InboundMessage => ({
  platform: 'telegram',
  accountId,
  chatId: senderId,
  chatType: 'dm',
  senderId,
  text: 'hi',
});
const group = (chatId: string, senderId: string, accountId = 'bot1'): InboundMessage => ({
  ...dm(senderId, accountId),
  chatId,
  chatType: 'group',
});

describe('channel policies', () => {
  it('allow admits, disabled refuses, per chat type', () => {
    const account = accountSchema.parse({ dm_policy: 'allow', group_policy: 'disabled' });
    assert.equal(checkPolicy(account, dm('1')).allowed, true);
    assert.equal(checkPolicy(account, group('-100', '1')).allowed, false);
  });

  it('allowlist compares the sender for a DM and the chat for a group', () => {
    const account = accountSchema.parse({
      dm_policy: 'allowlist',
      group_policy: 'allowlist',
      allow_from: ['111', '-100'],
    });
    assert.equal(checkPolicy(account, dm('111')).allowed, true);
    assert.equal(checkPolicy(account, dm('222')).allowed, false);
    assert.equal(checkPolicy(account, group('-100', '999')).allowed, true);
    // An allowed sender does not admit a group that is not listed.
    assert.equal(checkPolicy(account, group('-200', '111')).allowed, false);
  });
});

describe('binding resolution', () => {
  const bindings: BindingConfig[] = [
    { agent_id: 'fallback', match: { default: true } },
    { agent_id: 'tg', match: { channel: 'telegram' } },
    { agent_id: 'second', match: { channel: 'telegram', account_id: 'bot2' } },
    { agent_id: 'vip', match: { channel: 'telegram', peer: '555' } },
    { agent_id: 'team', match: { peer: '-100' } },
    { agent_id: 'slack-only', match: { channel: 'slack', peer: '777' } },
  ];

  it('goes peer, then account, then channel, then default, then main', () => {
    assert.deepEqual(resolveAgent(bindings, dm('555', 'bot2')), { agentId: 'vip', via: 'peer' });
    assert.deepEqual(resolveAgent(bindings, dm('1', 'bot2')), { agentId: 'second', via: 'account' });
    assert.deepEqual(resolveAgent(bindings, dm('1', 'bot1')), { agentId: 'tg', via: 'channel' });
    assert.deepEqual(resolveAgent(bindings, { ...dm('1'), platform: 'discord' }), {
      agentId: 'fallback',
      via: 'default',
    });
    assert.deepEqual(resolveAgent([], dm('1')), { agentId: 'main', via: 'fallback' });
  });

  it('a group peer is its chat id; a peer binding for another channel does not match', () => {
    assert.equal(resolveAgent(bindings, group('-100', '555')).agentId, 'team');
    assert.equal(resolveAgent(bindings, dm('777')).agentId, 'tg');
  });
});

describe('channel helpers', () => {
  it('splits long text at line breaks and never past the limit', () => {
    assert.deepEqual(splitText('short', 10), ['short']);
    assert.deepEqual(splitText('', 10), ['']);
    assert.deepEqual(splitText('aaaa\nbbbbbb\ncc', 8), ['aaaa', 'bbbbbb', 'cc']);
    const pieces = splitText('x'.repeat(9000), 4096);
    assert.deepEqual(
      pieces.map((piece) => piece.length),
      [4096, 4096, 808],
    );
    // A surrogate pair is never cut in half.
    const emoji = splitText('a' + '😀'.repeat(5), 4);
    assert.ok(emoji.every((piece) => piece.length <= 4 && !/[\ud800-\udbff]$/.test(piece)));
    assert.equal(emoji.join(''), 'a' + '😀'.repeat(5));
  });

  it('maps Telegram updates; bots and messages without text are skipped', () => {
    const base = { message_id: 7, chat: { id: -100, type: 'supergroup' }, from: { id: 5 } };
    assert.deepEqual(toInbound('bot1', { update_id: 1, message: { ...base, text: 'hi' } }), {
      platform: 'telegram',
      accountId: 'bot1',
      chatId: '-100',
      chatType: 'group',
      senderId: '5',
      text: 'hi',
      messageId: '7',
    });
    assert.equal(toInbound('bot1', { update_id: 2, message: base }), undefined);
    assert.equal(
      toInbound('bot1', { update_id: 3, message: { ...base, text: 'x', from: { id: 9, is_bot: true } } }),
      undefined,
    );
  });

  it('cleans file names', () => {
    assert.equal(safeFileName('../../etc/passwd'), 'passwd');
    assert.equal(safeFileName('a\u0000b"c.txt'), 'abc.txt');
    assert.equal(safeFileName('..'), 'file');
  });
});
