// What the bot posts: texts (split at Slack's message limit, each piece escaped as Slack requires),
// the streamed reply (a "thinking" message posted at once and edited with chat.update), images and
// files (files.uploadV2's steps), to a channel id, or to a user id through its DM.
import { sleep } from '../../core/async.ts';
import { AppError } from '../../core/errors.ts';
import { sendPieces, splitText } from '../split-text.ts';
import type { OutboundMedia, ReplyStream, SendResult } from '../types.ts';
import type { SlackApi, SlackCredentials } from './slack-api.ts';

/**
 * Longest text posted in one message. Slack truncates past 40,000 characters and advises keeping a
 * message under 4,000; longer answers become several messages.
 */
export const SLACK_TEXT_LIMIT = 4000;
/** What the reply shows until the answer starts. */
export const THINKING = 'Thinking…';

/** Slack reads &, < and > as markup (links, mentions); an answer's text is shown as written. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export function textPieces(text: string): string[] {
  return splitText(text, SLACK_TEXT_LIMIT).map(escapeText);
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

export class SlackSender {
  constructor(private readonly api: SlackApi) {}

  /** A channel id as given; a user id (U…/W…) becomes the bot's DM with that user. */
  async channelOf(credentials: SlackCredentials, chatId: string): Promise<string> {
    if (!USER_ID.test(chatId)) return chatId;
    const opened = await this.api.call(credentials, 'conversations.open', { users: chatId });
    const channel = (opened['channel'] as { id?: unknown } | undefined)?.id;
    if (typeof channel !== 'string')
      throw new AppError('upstream', 'slack conversations.open failed: no channel');
    return channel;
  }

  async post(
    credentials: SlackCredentials,
    channel: string,
    text: string,
    threadTs: string | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const posted = await this.api.call(
      credentials,
      'chat.postMessage',
      { channel, text, ...(threadTs ? { thread_ts: threadTs } : {}) },
      signal,
    );
    return String(posted['ts'] ?? '');
  }

  async sendText(
    credentials: SlackCredentials,
    chatId: string,
    text: string,
    threadTs?: string,
    signal?: AbortSignal,
  ): Promise<SendResult> {
    if (text.trim() === '') throw new AppError('invalid', 'slack: the message is empty');
    const channel = await this.channelOf(credentials, chatId);
    return sendPieces(textPieces(text), (piece) => this.post(credentials, channel, piece, threadTs, signal));
  }

  async sendMedia(
    credentials: SlackCredentials,
    chatId: string,
    kind: 'image' | 'file',
    media: OutboundMedia,
  ): Promise<SendResult> {
    const channel = await this.channelOf(credentials, chatId);
    if (media.kind === 'upload') {
      const fileId = await this.api.uploadFile(credentials, channel, media.data, media.fileName);
      return { messageId: fileId };
    }
    // A key is an image's public https URL, shown in an image block; Slack has no other file handle
    // a bot can post again.
    if (kind === 'file') {
      throw new AppError('invalid', 'slack: fileKey is not supported; send a workspace file with filePath');
    }
    if (!/^https:\/\/\S+$/.test(media.id) || media.id.length > 3000) {
      throw new AppError('invalid', 'slack: imageKey must be an https URL of the image');
    }
    const posted = await this.api.call(credentials, 'chat.postMessage', {
      channel,
      text: 'image',
      blocks: [{ type: 'image', image_url: media.id, alt_text: 'image' }],
    });
    return { messageId: String(posted['ts'] ?? '') };
  }

  /**
   * Posts the "thinking" message at once; the stream edits it, and adds messages past the limit.
   * Edits of the message are at least `spacingMs` apart (the caller throttles updates; the final
   * edit waits here too).
   */
  async beginReply(
    credentials: SlackCredentials,
    channel: string,
    threadTs: string | undefined,
    spacingMs: number,
    signal: AbortSignal,
  ): Promise<ReplyStream> {
    const ts = await this.post(credentials, channel, THINKING, threadTs, signal);
    return this.replyIn(credentials, channel, ts, threadTs, spacingMs, signal);
  }

  /** A reply begun earlier (by ReplyStream.ref, "channel ts"), edited from here on. */
  resumeReply(
    credentials: SlackCredentials,
    ref: string,
    threadTs: string | undefined,
    spacingMs: number,
    signal: AbortSignal,
  ): ReplyStream | undefined {
    const match = /^([A-Z0-9]{2,40}) (\d{1,20}\.\d{1,10})$/.exec(ref);
    if (!match) return undefined;
    return this.replyIn(credentials, match[1] as string, match[2] as string, threadTs, spacingMs, signal);
  }

  private replyIn(
    credentials: SlackCredentials,
    channel: string,
    ts: string,
    threadTs: string | undefined,
    spacingMs: number,
    signal: AbortSignal,
  ): ReplyStream {
    let lastEdit = 0;
    const edit = async (text: string): Promise<void> => {
      const wait = lastEdit + spacingMs - Date.now();
      if (wait > 0) await sleep(wait, signal);
      lastEdit = Date.now();
      await this.api.call(credentials, 'chat.update', { channel, ts, text }, signal);
    };
    return {
      ref: `${channel} ${ts}`,
      update: async (text) => {
        const [first] = textPieces(text);
        if (first) await edit(first);
      },
      finish: async (text) => {
        const [first = '', ...rest] = textPieces(text);
        await edit(first);
        for (const piece of rest) await this.post(credentials, channel, piece, threadTs, signal);
      },
    };
  }
}
