// What the two Feishu adapters share: account checks, sending (text, images, files, the streamed
// card), and turning a received message event into an InboundMessage with its images downloaded.
// They differ only in how events arrive: the long connection (feishu) or HTTP callbacks
// (feishu_webhook).
import type { Logger } from '../../core/logger.ts';
import type { Platform } from '../../config/schema.ts';
import { errorMessage } from '../../core/errors.ts';
import { RecentIds } from '../dedupe.ts';
import { mediaIdOf } from '../media-id.ts';
import type {
  ChannelAccount,
  ChannelAdapter,
  InboundMessage,
  InboundStyle,
  OutboundMedia,
  ReplyStream,
  SendResult,
  SendTextOptions,
} from '../types.ts';
import { FeishuApi, credentialsOf, type OutgoingMessage } from './feishu-api.ts';
import { credentialsKey, type FeishuCredentials } from './feishu-http.ts';
import { PlatformError } from '../platform-http.ts';
import { parseMessageEvent, receiveIdTypeOf } from './message-event.ts';
import { cardMessage, cardPieces, textMessage, textPieces } from './message-content.ts';
import { sendPieces } from '../split-text.ts';
import { pieceKey } from '../send-key.ts';
import { imageDataUrl } from './image-data-url.ts';
import type { FeishuAccount } from './account.ts';
import type { PlatformAccount } from '../account-schema.ts';

export interface FeishuOptions {
  /** Time limit of one API call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** What the reply card shows until the answer starts (default "Thinking…"). */
  thinkingText?: string;
  /** Largest image downloaded from a user's message, in bytes (default 5 MB). */
  maxImageBytes?: number;
  logger?: Logger;
}

/** Where a reply goes: a reply to a message (in its thread) or a new message in a chat. */
interface Target {
  chatId: string;
  replyTo?: string | undefined;
  inThread: boolean;
}

export abstract class FeishuAdapterBase implements ChannelAdapter<FeishuAccount> {
  abstract readonly platform: Extract<Platform, 'feishu' | 'feishu_webhook'>;
  abstract readonly accountFields: PlatformAccount<FeishuAccount>;
  readonly capabilities = { editMessage: true, typing: false, images: true, files: true };
  /** Feishu's upload limits: 10 MB for images, 30 MB for files. */
  readonly maxUploadBytes = { image: 10 * 1024 * 1024, file: 30 * 1024 * 1024 };
  /** Feishu allows 5 updates a second per message; half that leaves room for the final one. */
  readonly editIntervalMs = 400;
  protected readonly api: FeishuApi;
  /** The bot's open_id per app, for mentions (a lookup under way is shared). */
  private readonly botIds = new Map<string, Promise<string>>();
  /** Event ids handled recently, per account: a redelivered event is dropped by them. */
  private readonly recentEvents = new Map<string, RecentIds>();

  constructor(protected readonly options: FeishuOptions = {}) {
    this.api = new FeishuApi({
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
  }

  abstract inboundStyle(account: FeishuAccount): InboundStyle;

  async sendText(
    account: ChannelAccount<FeishuAccount>,
    chatId: string,
    text: string,
    options: SendTextOptions = {},
  ): Promise<SendResult> {
    const credentials = credentialsOf(account);
    const target: Target = { chatId, replyTo: options.replyTo, inThread: options.threadId !== undefined };
    const key = options.idempotencyKey;
    return sendPieces(textPieces(text), (piece, index) =>
      this.post(
        credentials,
        target,
        // Feishu sends one message per uuid (at most 50 characters) within an hour.
        key === undefined ? textMessage(piece) : { ...textMessage(piece), uuid: pieceKey(key, index, 50) },
        options.signal,
      ),
    );
  }

  sendImage(
    account: ChannelAccount<FeishuAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, chatId, media, 'image');
  }

  sendFile(
    account: ChannelAccount<FeishuAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, chatId, media, 'file');
  }

  /** Uploads the media (unless Feishu holds it already) and posts it as an image or file message. */
  private async sendMedia(
    account: ChannelAccount<FeishuAccount>,
    chatId: string,
    media: OutboundMedia,
    kind: 'image' | 'file',
  ): Promise<SendResult> {
    const credentials = credentialsOf(account);
    const upload =
      kind === 'image' ? this.api.uploadImage.bind(this.api) : this.api.uploadFile.bind(this.api);
    const key = await mediaIdOf(media, (data, fileName) => upload(credentials, data, fileName));
    const content = JSON.stringify(kind === 'image' ? { image_key: key } : { file_key: key });
    const id = await this.post(credentials, { chatId, inThread: false }, { msgType: kind, content });
    return { messageId: id };
  }

  /**
   * Shows a "thinking" card at once (a reply to the user's message in groups and threads), patched
   * with the answer as it streams; an answer too long for one card continues in further cards.
   */
  async beginReply(
    account: ChannelAccount<FeishuAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream> {
    const credentials = credentialsOf(account);
    const quote = message.chatType === 'group' || message.threadId !== undefined;
    const target: Target = {
      chatId: message.chatId,
      replyTo: quote ? message.messageId : undefined,
      inThread: message.threadId !== undefined,
    };
    const cardId = await this.post(
      credentials,
      target,
      cardMessage(this.options.thinkingText ?? 'Thinking…'),
      signal,
    );
    const show = async (text: string): Promise<string[]> => {
      const [head = '', ...rest] = cardPieces(text);
      if (head.trim() !== '')
        await this.api.patchCard(credentials, cardId, cardMessage(head).content, signal);
      return rest;
    };
    return {
      update: async (text) => {
        await show(text);
      },
      finish: async (text) => {
        let rest: string[];
        try {
          rest = await show(text);
        } catch (error) {
          // Feishu refused the edit (card deleted, too old, ...): the answer goes out as new cards.
          if (signal.aborted || !(error instanceof PlatformError) || error.code === undefined) throw error;
          this.log('warn', account, { err: error.message }, 'feishu card not updated; answer sent anew');
          rest = cardPieces(text);
        }
        for (const piece of rest) await this.post(credentials, target, cardMessage(piece), signal);
      },
    };
  }

  /** The bot's open_id, fetched once per app (again when `refresh`). */
  protected botOpenId(
    credentials: FeishuCredentials,
    signal?: AbortSignal,
    refresh = false,
  ): Promise<string> {
    const key = credentialsKey(credentials);
    const known = this.botIds.get(key);
    if (known !== undefined && !refresh) return known;
    const lookup = this.api.botInfo(credentials, signal).then((bot) => bot.openId);
    this.botIds.set(key, lookup);
    // A failed lookup is forgotten, so the next message tries again.
    lookup.catch(() => {
      if (this.botIds.get(key) === lookup) this.botIds.delete(key);
    });
    return lookup;
  }

  /** The bot's open_id if it is known or can be fetched; undefined (logged) otherwise. */
  private async botOpenIdIfKnown(
    account: ChannelAccount<FeishuAccount>,
    credentials: FeishuCredentials,
  ): Promise<string | undefined> {
    try {
      return await this.botOpenId(credentials);
    } catch (error) {
      this.log(
        'warn',
        account,
        { err: errorMessage(error) },
        'feishu bot info unavailable; mentions unknown',
      );
      return undefined;
    }
  }

  /**
   * Handles one im.message.receive_v1 event: drops a redelivered event id, then delivers the
   * message once its images are downloaded. Never throws.
   */
  protected async receiveMessage(
    account: ChannelAccount<FeishuAccount>,
    eventId: string | undefined,
    event: unknown,
    deliver: (message: InboundMessage) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    try {
      if (eventId) {
        let recent = this.recentEvents.get(account.id);
        if (!recent) this.recentEvents.set(account.id, (recent = new RecentIds()));
        if (recent.repeat(eventId)) {
          this.log('info', account, { eventId }, 'redelivered feishu event dropped');
          return;
        }
      }
      const credentials = credentialsOf(account);
      const parsed = parseMessageEvent(
        this.platform,
        account.id,
        event,
        await this.botOpenIdIfKnown(account, credentials),
      );
      if (!parsed) return;
      const { message, imageKeys } = parsed;
      const images: Array<{ url: string }> = [];
      for (const key of imageKeys) {
        try {
          const { bytes, contentType } = await this.api.downloadResource(
            credentials,
            message.messageId ?? '',
            key,
            'image',
            this.options.maxImageBytes ?? 5 * 1024 * 1024,
            signal,
          );
          images.push({ url: imageDataUrl(bytes, contentType) });
        } catch (error) {
          if (signal?.aborted) return;
          this.log(
            'warn',
            account,
            { messageId: message.messageId, err: errorMessage(error) },
            'feishu image skipped',
          );
        }
      }
      deliver(images.length > 0 ? { ...message, images } : message);
    } catch (error) {
      this.log('warn', account, { err: errorMessage(error) }, 'feishu event skipped');
    }
  }

  protected log(
    level: 'info' | 'warn',
    account: ChannelAccount<FeishuAccount>,
    fields: object,
    message: string,
  ): void {
    this.options.logger?.[level]({ platform: this.platform, accountId: account.id, ...fields }, message);
  }

  private post(
    credentials: FeishuCredentials,
    target: Target,
    message: OutgoingMessage,
    signal?: AbortSignal,
  ): Promise<string> {
    if (target.replyTo) {
      return this.api.replyMessage(credentials, target.replyTo, message, target.inThread, signal);
    }
    return this.api.sendMessage(credentials, receiveIdTypeOf(target.chatId), target.chatId, message, signal);
  }
}
