// A gateway MESSAGE_CREATE, reduced to what routing needs: DMs (no guild_id) and guild messages,
// with the bot's mention removed from the text and whether it was mentioned. Messages of bots
// (this one included), webhooks and the system (joins, pins, thread notices) are ignored. Pictures
// attached are read for the model as data: URLs, only from Discord's CDN or the account's api_base.
import type { GatewayMessageCreateDispatchData } from 'discord-api-types/v10';
import { errorMessage } from '../../core/errors.ts';
import { PlatformError, platformFetch } from '../platform-http.ts';
import type { ChannelAccount, InboundImage, InboundMessage } from '../types.ts';
import { apiRoot } from './discord-rest.ts';
import type { DiscordAccount } from './account.ts';

export interface PictureOptions {
  /** Largest picture read, in bytes; a larger one is skipped. */
  maxBytes: number;
  /** Most pictures taken from one message. */
  maxCount: number;
  timeoutMs: number;
}

/** Where attachments are served from; plain http only from the account's own api_base. */
const CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net']);

const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)$/i;

/** Message types people write: a plain message and a reply. */
/** MessageType.Default (0) and MessageType.Reply (19): what people write. */
const USER_TYPES = new Set<number>([0, 19]);

export type DiscordMessage = GatewayMessageCreateDispatchData;

/** The inbound message of a MESSAGE_CREATE, or undefined when it is not for the bot. */
export function toInbound(
  accountId: string,
  botUserId: string | undefined,
  message: DiscordMessage,
): Omit<InboundMessage, 'images'> | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  if (typeof message.id !== 'string' || typeof message.channel_id !== 'string') return undefined;
  const author = message.author;
  if (typeof author !== 'object' || author === null || typeof author.id !== 'string') return undefined;
  if (author.bot === true || author.id === botUserId || message.webhook_id !== undefined) return undefined;
  if (!USER_TYPES.has(message.type)) return undefined;
  const isGuild = typeof message.guild_id === 'string';
  const mentioned =
    botUserId !== undefined &&
    Array.isArray(message.mentions) &&
    message.mentions.some((user) => user?.id === botUserId);
  let text = typeof message.content === 'string' ? message.content : '';
  if (botUserId !== undefined)
    text = text.replaceAll(`<@${botUserId}>`, '').replaceAll(`<@!${botUserId}>`, '');
  return {
    platform: 'discord',
    accountId,
    chatId: message.channel_id,
    chatType: isGuild ? 'group' : 'dm',
    senderId: author.id,
    text: text.replace(/[ \t]{2,}/g, ' ').trim(),
    messageId: message.id,
    ...(isGuild ? { mentioned } : {}),
    // Every answer refers to the message it answers, in DMs too (inbound passes replyTo for groups only).
    replyContext: { messageId: message.id },
  };
}

/** The picture attachments of a message, as the model receives them; failures are skipped and logged. */
export async function readPictures(
  account: ChannelAccount<DiscordAccount>,
  message: DiscordMessage,
  options: PictureOptions,
  warn: (detail: object, text: string) => void,
  signal?: AbortSignal,
): Promise<InboundImage[]> {
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  const pictures = attachments
    .filter((attachment) =>
      typeof attachment?.content_type === 'string'
        ? attachment.content_type.startsWith('image/')
        : IMAGE_EXTENSION.test(String(attachment?.filename ?? '')),
    )
    .slice(0, options.maxCount);
  const images: InboundImage[] = [];
  for (const attachment of pictures) {
    try {
      if (typeof attachment.size === 'number' && attachment.size > options.maxBytes) {
        throw new Error(`larger than ${options.maxBytes} bytes`);
      }
      images.push(await download(account, String(attachment.url), options, signal));
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      warn(
        { platform: 'discord', accountId: account.id, attachmentId: attachment.id, err: errorMessage(error) },
        'discord picture skipped',
      );
    }
  }
  return images;
}

async function download(
  account: ChannelAccount<DiscordAccount>,
  address: string,
  options: PictureOptions,
  signal?: AbortSignal,
): Promise<InboundImage> {
  const url = new URL(address);
  const own = new URL(apiRoot(account)).origin;
  if (!(url.protocol === 'https:' && CDN_HOSTS.has(url.hostname)) && url.origin !== own) {
    throw new Error("the attachment is not on Discord's CDN");
  }
  const response = await platformFetch({
    what: 'discord attachment download',
    url,
    signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
  });
  if (!response.ok) throw new PlatformError(`the download failed (${response.status})`);
  const bytes = response.body;
  const declared = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  const type = declared?.startsWith('image/') ? declared : sniff(bytes);
  if (!type) throw new Error('the attachment is not a picture');
  return { url: `data:${type};base64,${bytes.toString('base64')}` };
}

function sniff(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 12).toString('latin1');
  if (head.startsWith('\x89PNG')) return 'image/png';
  if (head.startsWith('\xff\xd8\xff')) return 'image/jpeg';
  if (head.startsWith('GIF8')) return 'image/gif';
  if (/^RIFF....WEBP/s.test(head)) return 'image/webp';
  return undefined;
}
