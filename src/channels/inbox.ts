// The channel side of the durable inbox (storage/durable-work.ts): what a recorded inbound message
// holds and its id. The id is the platform's message id within its account and chat, so a platform
// redelivering the message is recognised by every instance; a message without an id cannot be
// recognised and gets a random one.
import { randomUUID } from 'node:crypto';
import { PLATFORMS, type Platform } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { DurableWork } from '../storage/durable-work.ts';
import { APOLOGY, type InboundDeps } from './inbound.ts';
import { withSendRetry } from './send-retry.ts';
import type { ChannelAccount, ChannelAdapter, InboundMessage } from './types.ts';

export const INBOX_KIND = 'channel';

export interface InboxEntry {
  platform: Platform;
  accountId: string;
  message: InboundMessage;
  /** The reply an attempt began (ReplyStream.ref): a later attempt edits it rather than post another. */
  replyRef?: string;
  /**
   * The answer whose send an attempt began (recorded with the confirmation just before it): an
   * instance taking the message over sends it again, with the same idempotency key, rather than run
   * the turn again (the first send may have landed; see the README's durable inbox).
   */
  answer?: string;
}

/** The largest answer kept with a recorded message (a longer one is run again if taken over). */
const MAX_RECORDED_ANSWER = 256 * 1024;

export function inboxId(message: InboundMessage): string {
  const id = message.messageId ?? `unnamed-${randomUUID()}`;
  return JSON.stringify(['channel', message.platform, message.accountId, message.chatId, id]);
}

/** A recorded entry as read back (written by this code, but checked: a row may be from an older version). */
export function readInboxEntry(payload: unknown): InboxEntry | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const entry = payload as Partial<InboxEntry>;
  if (!PLATFORMS.includes(entry.platform as Platform) || typeof entry.accountId !== 'string')
    return undefined;
  const message = entry.message;
  if (typeof message !== 'object' || message === null || typeof message.chatId !== 'string') return undefined;
  if (typeof message.text !== 'string') return undefined;
  const read: InboxEntry = { platform: entry.platform as Platform, accountId: entry.accountId, message };
  if (typeof entry.replyRef === 'string' && entry.replyRef.length <= 200) read.replyRef = entry.replyRef;
  if (typeof entry.answer === 'string' && entry.answer.length <= MAX_RECORDED_ANSWER)
    read.answer = entry.answer;
  return read;
}

/** What handleInbound asks of the durable inbox for a recorded message (see InboundDeps). */
export function inboxHooks(
  work: DurableWork,
  id: string,
  entry: InboxEntry,
): Pick<
  InboundDeps,
  'stillOwned' | 'resumeRef' | 'onReplyStarted' | 'recordedAnswer' | 'sendKey' | 'markSent' | 'unmarkSent'
> {
  const current: InboxEntry = { ...entry };
  let noting: Promise<void> = Promise.resolve();
  return {
    // The answer is recorded in the statement that confirms the claim, after any note of the reply
    // begun (a late note must not write over it).
    stillOwned: async (answer) => {
      await noting;
      const recorded = answer.length <= MAX_RECORDED_ANSWER ? { ...current, answer } : current;
      return work.stillOwned(id, undefined, recorded);
    },
    resumeRef: entry.replyRef,
    recordedAnswer: entry.answer,
    sendKey: id,
    markSent: () => work.markSent(id),
    unmarkSent: () => work.unmarkSent(id),
    onReplyStarted: (ref) => {
      current.replyRef = ref;
      noting = work.note(id, { ...current });
      return noting;
    },
  };
}

/**
 * A recorded message given up after repeated attempts (every instance that took it stalled or died)
 * still gets a visible answer: the apology, so no acknowledged message goes without a reply.
 */
export async function apologizeGivenUp(
  entry: InboxEntry | undefined,
  adapter: ChannelAdapter | undefined,
  account: ChannelAccount | undefined,
  logger: Logger,
): Promise<void> {
  logger.warn(
    { platform: entry?.platform, accountId: entry?.accountId, chatId: entry?.message.chatId },
    'a channel message failed on every attempt; given up',
  );
  if (!entry || !adapter || !account) return;
  const { message } = entry;
  await withSendRetry(() =>
    adapter.sendText(account, message.chatId, APOLOGY, {
      replyTo: message.chatType === 'group' ? message.messageId : undefined,
      threadId: message.threadId,
      replyContext: message.replyContext,
    }),
  ).catch((error: unknown) =>
    logger.warn({ chatId: message.chatId, err: errorMessage(error) }, 'could not send the apology'),
  );
}
