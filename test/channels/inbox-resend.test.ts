// The answer of a recorded message is recorded with the confirmation made just before it is sent, and
// every send of it carries the message's idempotency key; an instance that takes the message over
// after its owner died mid-send sends that answer again (the final edit of the reply begun, or the
// same keyed send) instead of running the turn again.
import assert from 'node:assert/strict';
import { answering, inboundDeps } from './inbound-deps.ts';
import { after, describe, it } from 'node:test';
import { handleInbound, type InboundDeps } from '../../src/channels/inbound.ts';
import { PlatformError } from '../../src/channels/platform-http.ts';
import { inboxHooks, readInboxEntry, type InboxEntry } from '../../src/channels/inbox.ts';
import type {
  ChannelAdapter,
  InboundMessage,
  ReplyStream,
  SendTextOptions,
} from '../../src/channels/types.ts';
import type { Db } from '../../src/storage/database.ts';
import { DurableWork } from '../../src/storage/durable-work.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const message: InboundMessage = {
  platform: 'telegram',
  accountId: 'bot1',
  chatId: '42',
  chatType: 'dm',
  senderId: '42',
  text: 'hello',
  messageId: 'm1',
};

function harness(overrides: Partial<InboundDeps>, streaming = false) {
  const sent: Array<{ text: string; key: string | undefined }> = [];
  const streams: Array<{ resumed: string | undefined; finished: string[] }> = [];
  const stream = (resumed: string | undefined): ReplyStream => {
    const record = { resumed, finished: [] as string[] };
    streams.push(record);
    return {
      ref: resumed ?? 'ref-new',
      update: async () => undefined,
      finish: async (text) => void record.finished.push(text),
    };
  };
  const adapter = {
    platform: 'telegram',
    capabilities: { editMessage: streaming, typing: false },
    sendText: async (_account: unknown, _chatId: string, text: string, options: SendTextOptions = {}) => {
      sent.push({ text, key: options.idempotencyKey });
      return { messageId: String(sent.length) };
    },
    ...(streaming
      ? {
          beginReply: async () => stream(undefined),
          resumeReply: async (_account: unknown, _message: unknown, ref: string) => stream(ref),
        }
      : {}),
  } as unknown as ChannelAdapter;
  const { turns, ran } = answering('a fresh answer');
  const deps = inboundDeps(adapter, turns, overrides);
  return { deps, sent, streams, turnsRun: ran };
}

describe('the durable inbox: answers recorded before they are sent', () => {
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });

  it('the hold is asked with the answer, and the send carries the key', async () => {
    const asked: string[] = [];
    const { deps, sent } = harness({
      stillOwned: async (answer) => asked.push(answer) > 0,
      sendKey: 'inbox-id',
    });
    assert.equal(await handleInbound(message, deps), 'replied');
    assert.deepEqual(asked, ['a fresh answer']);
    assert.deepEqual(sent, [{ text: 'a fresh answer', key: 'inbox-id' }]);
  });

  it('a recorded answer is sent again with the same key, and no turn runs', async () => {
    const { deps, sent, turnsRun } = harness({
      recordedAnswer: 'the first answer',
      sendKey: 'inbox-id',
      stillOwned: async () => true,
    });
    assert.equal(await handleInbound(message, deps), 'replied');
    assert.deepEqual(sent, [{ text: 'the first answer', key: 'inbox-id' }]);
    assert.equal(turnsRun(), 0);
  });

  it('a recorded answer of a streamed reply finishes the reply begun, and no turn runs', async () => {
    const { deps, sent, streams, turnsRun } = harness(
      { recordedAnswer: 'the first answer', resumeRef: 'ref-1', stillOwned: async () => true },
      true,
    );
    assert.equal(await handleInbound(message, deps), 'replied');
    assert.deepEqual(streams, [{ resumed: 'ref-1', finished: ['the first answer'] }]);
    assert.deepEqual(sent, []);
    assert.equal(turnsRun(), 0);
  });

  it('a recorded answer taken over by another instance is not sent', async () => {
    const { deps, sent } = harness({ recordedAnswer: 'the first answer', stillOwned: async () => false });
    assert.equal(await handleInbound(message, deps), 'taken');
    assert.deepEqual(sent, []);
  });

  it('each send attempt starts the answered mark with it; a failed attempt is unmarked before the retry', async () => {
    const events: string[] = [];
    let attempts = 0;
    const { deps } = harness({
      stillOwned: async () => true,
      markSent: async () => void events.push('mark'),
      unmarkSent: async () => void events.push('unmark'),
    });
    deps.adapter.sendText = async () => {
      attempts++;
      events.push(`send ${attempts}`);
      if (attempts === 1) throw new PlatformError('server error', { status: 502 });
      return { messageId: '1' };
    };
    assert.equal(await handleInbound(message, deps), 'replied');
    assert.deepEqual(events, ['mark', 'send 1', 'unmark', 'mark', 'send 2']);
  });

  it('markSent marks the row done at once, unmarkSent makes it running again, finish after a mark is free', async () => {
    const database = await createTestDatabase('libsql', process.env);
    databases.push(database);
    const db: Db = await database.open();
    const work = new DurableWork(db, 'a', { leaseMs: 60_000 });
    assert.equal(await work.record('channel', 'm', { text: 'x' }), true);
    await work.markSent('m');
    assert.equal((await work.status('m'))?.status, 'done');
    await work.unmarkSent('m');
    assert.equal((await work.status('m'))?.status, 'running');
    await work.unmarkSent('m'); // not marked: nothing to undo
    assert.equal((await work.status('m'))?.status, 'running');
    await work.markSent('m');
    await work.finish('m', 'done');
    assert.deepEqual(await work.status('m'), { status: 'done', owner: 'a', attempts: 1 });
    // Another instance's row is not marked by this one.
    const other = new DurableWork(db, 'b', { leaseMs: 60_000 });
    assert.equal(await other.record('channel', 'n', { text: 'y' }), true);
    await work.markSent('n');
    assert.equal((await work.status('n'))?.status, 'running');
    await db.destroy();
  });

  it('the confirmation records the answer after the note of the reply begun; it reads back', async () => {
    const database = await createTestDatabase('libsql', process.env);
    databases.push(database);
    const db: Db = await database.open();
    const work = new DurableWork(db, 'a', { leaseMs: 60_000 });
    const entry: InboxEntry = { platform: 'telegram', accountId: 'bot1', message };
    assert.equal(await work.record('channel', 'id-1', entry), true);
    const hooks = inboxHooks(work, 'id-1', entry);
    assert.equal(hooks.sendKey, 'id-1');
    assert.equal(hooks.recordedAnswer, undefined);
    // The note is not waited for by the turn; the confirmation waits for it, so it cannot land later.
    void hooks.onReplyStarted?.('ref-9');
    assert.equal(await hooks.stillOwned?.('the answer'), true);
    const row = await db
      .selectFrom('durable_work' as never)
      .select(['payload' as never])
      .where('id' as never, '=', 'id-1' as never)
      .executeTakeFirstOrThrow();
    const read = readInboxEntry(JSON.parse((row as { payload: string }).payload));
    assert.equal(read?.answer, 'the answer');
    assert.equal(read?.replyRef, 'ref-9');
    // Taken over, the hooks of the next attempt carry both.
    const next = inboxHooks(work, 'id-1', read as InboxEntry);
    assert.equal(next.recordedAnswer, 'the answer');
    assert.equal(next.resumeRef, 'ref-9');
    await db.destroy();
  });
});
