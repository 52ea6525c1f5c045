// WeCom self-built app (mode app): users write to the app, WeCom calls
// /webhooks/wecom/{accountId} with the encrypted message, and the answer goes back through the app
// message API. The callback is checked (signature over the ciphertext, decryption, the corp id it is
// addressed to) before anything else; a request that fails is a 401 and starts nothing. A valid one is
// answered at once with an empty 200 (WeCom retries after five seconds), and the turn runs after it.
import type { Logger } from '../../core/logger.ts';
import type {
  ChannelAccount,
  InboundMessage,
  OutboundMedia,
  SendResult,
  WebhookReply,
  WebhookRequest,
} from '../types.ts';
import { AppError } from '../../core/errors.ts';
import { WecomAppApi } from './app-api.ts';
import { openPayload, signatureValid, xmlFields, type CallbackKeys } from './callback-crypto.ts';
import { imageDataUrl, splitUtf8 } from './media.ts';
import { mediaIdOf } from '../media-id.ts';
import { sendPieces } from '../split-text.ts';
import { PlatformError } from '../platform-http.ts';
import type { WecomAccount } from './account.ts';

/** Longest text message of the app message API, in UTF-8 bytes. */
export const APP_TEXT_LIMIT = 2048;

export interface WecomAppOptions {
  /** Time limit of one API call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** Largest image taken from a user, in bytes (default 5 MB). */
  maxImageBytes?: number;
  /** Clock of the access-token cache (tests). */
  now?: () => number;
  logger?: Logger;
}

const REFUSED: WebhookReply = {
  status: 401,
  body: { error: 'the WeCom callback signature or encryption is not valid' },
};
const RECEIVED: WebhookReply = { status: 200, body: '', contentType: 'text/plain; charset=utf-8' };

function keysOf(account: ChannelAccount<WecomAccount>): CallbackKeys {
  const { token, encoding_aes_key: encodingAesKey, app_id: corpId } = account.config;
  if (!token || !encodingAesKey || !corpId) {
    throw new AppError('conflict', `wecom account "${account.id}" needs token, encoding_aes_key and app_id`);
  }
  return { token, encodingAesKey, corpId };
}

/** Base64 in a query string may arrive with its "+" decoded to a space; base64 never holds a space. */
const base64Param = (value: string | undefined): string | undefined => value?.replaceAll(' ', '+');

export class WecomApp {
  private readonly api: WecomAppApi;

  constructor(private readonly options: WecomAppOptions = {}) {
    this.api = new WecomAppApi({
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }

  async handleWebhook(
    account: ChannelAccount<WecomAccount>,
    request: WebhookRequest,
    deliver: (message: InboundMessage) => void,
  ): Promise<WebhookReply> {
    const keys = keysOf(account);
    if (request.method === 'GET') {
      // URL verification when the callback URL is saved: the decrypted echostr proves we hold the keys.
      const echo = base64Param(request.query['echostr']);
      if (!echo || !signatureValid(keys, request.query, echo)) return REFUSED;
      const plain = openPayload(keys, echo);
      return plain === undefined
        ? REFUSED
        : { status: 200, body: plain, contentType: 'text/plain; charset=utf-8' };
    }
    const encrypted = xmlFields(request.body.toString('utf8'))['Encrypt'];
    if (!encrypted || !signatureValid(keys, request.query, encrypted)) return REFUSED;
    const plain = openPayload(keys, encrypted);
    if (plain === undefined) return REFUSED;
    const fields = xmlFields(plain);
    const message = this.toInbound(account, fields);
    if (!message) return RECEIVED;
    const mediaId = fields['MsgType'] === 'image' ? fields['MediaId'] : undefined;
    if (!mediaId) deliver(message);
    else {
      void this.image(account, mediaId).then((image) =>
        deliver(image ? { ...message, images: [{ url: image }] } : message),
      );
    }
    return RECEIVED;
  }

  /** App chats have no editing: the answer is sent whole when it is ready. */
  /** `chatId` is a user id (or several joined with "|", as message/send takes them). */
  async sendText(account: ChannelAccount<WecomAccount>, chatId: string, text: string): Promise<SendResult> {
    return sendPieces(splitUtf8(text, APP_TEXT_LIMIT), async (content) => {
      const sent = await this.send(account, chatId, { msgtype: 'text', text: { content } });
      return sent.messageId;
    });
  }

  async sendMedia(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    kind: 'image' | 'file',
    media: OutboundMedia,
  ): Promise<SendResult> {
    const mediaId = await mediaIdOf(media, async (data, fileName) => {
      const uploaded = await this.api.call(account, '/cgi-bin/media/upload', {
        query: { type: kind },
        form: () => {
          const form = new FormData();
          form.set('media', data, fileName);
          return form;
        },
      });
      if (typeof uploaded['media_id'] !== 'string') {
        throw new PlatformError('wecom /cgi-bin/media/upload: no media_id in the answer');
      }
      return uploaded['media_id'];
    });
    return this.send(account, chatId, { msgtype: kind, [kind]: { media_id: mediaId } });
  }

  private async send(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    content: Record<string, unknown>,
  ): Promise<SendResult> {
    const answer = await this.api.call(account, '/cgi-bin/message/send', {
      json: { touser: chatId, agentid: Number(account.config.agent_id), ...content },
    });
    return { messageId: String(answer['msgid'] ?? '') };
  }

  /** A user's text (or image, or recognised voice) as an InboundMessage; undefined for events and the rest. */
  private toInbound(
    account: ChannelAccount<WecomAccount>,
    fields: Record<string, string>,
  ): InboundMessage | undefined {
    const sender = fields['FromUserName'];
    const agentId = fields['AgentID'];
    if (!sender) return undefined;
    if (agentId && account.config.agent_id && agentId !== account.config.agent_id) {
      this.options.logger?.warn(
        { platform: 'wecom', accountId: account.id, agentId },
        'wecom callback for another app ignored',
      );
      return undefined;
    }
    const type = fields['MsgType'];
    const text =
      type === 'text'
        ? fields['Content']
        : type === 'voice'
          ? fields['Recognition']
          : type === 'image'
            ? ''
            : undefined;
    if (text === undefined || (type === 'voice' && text.trim() === '')) return undefined;
    return {
      platform: 'wecom',
      accountId: account.id,
      chatId: sender,
      chatType: 'dm',
      senderId: sender,
      text,
      ...(fields['MsgId'] ? { messageId: fields['MsgId'] } : {}),
    };
  }

  /** The user's image as a data: URL; undefined (and a warning) when it cannot be fetched. */
  private async image(account: ChannelAccount<WecomAccount>, mediaId: string): Promise<string | undefined> {
    try {
      const bytes = await this.api.download(account, mediaId, this.options.maxImageBytes ?? 5 * 1024 * 1024);
      const url = imageDataUrl(bytes);
      if (!url) throw new PlatformError('wecom: a downloaded image is in no known image format');
      return url;
    } catch (error) {
      this.options.logger?.warn(
        { platform: 'wecom', accountId: account.id, err: (error as Error).message },
        'wecom image skipped',
      );
      return undefined;
    }
  }
}
