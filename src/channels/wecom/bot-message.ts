// What a smart robot's message callback (aibot_msg_callback) becomes: an InboundMessage whose
// replyContext carries the frame's req_id (every stream frame of the answer echoes it), plus the
// images to fetch. Images arrive as short-lived URLs to AES-256-CBC encrypted files, each with its own
// key; they are downloaded (capped), decrypted and handed to the model as data: URLs.
import { decryptFile } from '@wecom/aibot-node-sdk';
import type { InboundImage, InboundMessage } from '../types.ts';
import { imageDataUrl } from './media.ts';
import { PlatformError, platformFetch } from '../platform-http.ts';

/** Images taken from one message at most; more are dropped. */
export const MAX_IMAGES_PER_MESSAGE = 4;

export interface ImageReference {
  url: string;
  aeskey?: string;
}

export interface BotMessage {
  message: InboundMessage;
  images: ImageReference[];
}

interface Item {
  msgtype?: unknown;
  text?: { content?: unknown };
  image?: { url?: unknown; aeskey?: unknown };
  voice?: { content?: unknown; text?: unknown };
}

interface Body extends Item {
  msgid?: unknown;
  chatid?: unknown;
  chattype?: unknown;
  from?: { userid?: unknown };
  mixed?: { msg_item?: unknown };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function imageOf(item: Item): ImageReference | undefined {
  const url = text(item.image?.url);
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  const aeskey = text(item.image?.aeskey);
  return aeskey ? { url, aeskey } : { url };
}

/**
 * A message callback frame as an InboundMessage; undefined for frames that are no message we answer
 * (files, videos, malformed bodies). In a group the robot only receives messages that @mention it, and
 * the mention leads the text: it is taken off.
 */
export function readBotMessage(accountId: string, frame: unknown): BotMessage | undefined {
  const { headers, body } = (frame ?? {}) as { headers?: { req_id?: unknown }; body?: Body };
  const reqId = text(headers?.req_id);
  const sender = text(body?.from?.userid);
  const messageId = text(body?.msgid);
  if (!body || !reqId || !sender || !messageId) return undefined;
  const group = body.chattype === 'group';
  const chatId = group ? text(body.chatid) : sender;
  if (!chatId) return undefined;
  const texts: string[] = [];
  const images: ImageReference[] = [];
  const items: Item[] =
    body.msgtype === 'mixed' && Array.isArray(body.mixed?.msg_item) ? body.mixed.msg_item : [body];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    if (item.msgtype === 'text') texts.push(text(item.text?.content) ?? '');
    else if (item.msgtype === 'voice') texts.push(text(item.voice?.content) ?? text(item.voice?.text) ?? '');
    else if (item.msgtype === 'image') {
      const image = imageOf(item);
      if (image && images.length < MAX_IMAGES_PER_MESSAGE) images.push(image);
    }
  }
  if (texts.length === 0 && images.length === 0) return undefined;
  let content = texts.join('\n').trim();
  if (group) content = content.replace(/^@\S+\s*/, '');
  return {
    message: {
      platform: 'wecom',
      accountId,
      chatId,
      chatType: group ? 'group' : 'dm',
      senderId: sender,
      text: content,
      messageId,
      ...(group ? { mentioned: true } : {}),
      replyContext: { req_id: reqId },
    },
    images,
  };
}

export interface ImageDownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Downloads and decrypts one image; fails with a PlatformError that names no URL. */
export async function downloadImage(
  image: ImageReference,
  options: ImageDownloadOptions,
): Promise<InboundImage> {
  // The encrypted file is padded to 32 bytes at most: the cap is on the image, not its padding.
  const response = await platformFetch({
    what: 'wecom image download',
    url: image.url,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes + 32,
  });
  if (!response.ok) throw new PlatformError(`wecom: the image download failed (status ${response.status})`);
  const encrypted = response.body;
  let bytes: Buffer;
  try {
    bytes = image.aeskey ? decryptFile(encrypted, image.aeskey) : encrypted;
  } catch {
    throw new PlatformError('wecom: an image could not be decrypted');
  }
  if (bytes.length > options.maxBytes) {
    throw new PlatformError(`wecom: an image is larger than ${options.maxBytes} bytes`);
  }
  const url = imageDataUrl(bytes);
  if (!url) throw new PlatformError('wecom: a downloaded image is in no known image format');
  return { url };
}
