// DingTalk (钉钉) in Stream mode: the robot's messages arrive over one WebSocket per account (the
// client id is app_id, the secret app_secret), answers go back through each message's sessionWebhook
// or the robot send API, and with a card_template_id an answer streams into an AI card. api_base, when
// set, is the origin of both DingTalk APIs (api.dingtalk.com and oapi.dingtalk.com): a proxy, or the
// fake platform of the tests.
import type { Logger } from '../../core/logger.ts';
import { errorMessage } from '../../core/errors.ts';
import type {
  ChannelAccount,
  ChannelAdapter,
  ConnectionLink,
  InboundImage,
  InboundMessage,
  InboundStyle,
  OutboundMedia,
  ReplyStream,
  SendResult,
  SendTextOptions,
} from '../types.ts';
import { sendPieces, splitText } from '../split-text.ts';
import { startAiCard } from './ai-card.ts';
import { DingTalkOpenApi, originsOf } from './open-api.ts';
import { downloadPicture, type PictureOptions } from './pictures.ts';
import { parseRobotMessage, replyContextOf } from './robot-message.ts';
import { DINGTALK_TEXT_LIMIT, markdown, replyMarkdown, sendToChat } from './robot-send.ts';
import { runStreamConnection } from './stream-connection.ts';
import { dingtalkAccount, type DingTalkAccount } from './account.ts';

export interface DingTalkOptions {
  /** Time limit of one API call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** How often the stream connection is pinged, in ms (default 30000). */
  pingIntervalMs?: number;
  /** Largest picture a user sends that is passed to the model, in bytes (default 5 MB). */
  maxPictureBytes?: number;
  logger?: Logger;
}

/** The file type sampleFile shows: the name's extension, or "file". */
function fileTypeOf(fileName: string): string {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  return match?.[1]?.toLowerCase() ?? 'file';
}

export class DingTalkAdapter implements ChannelAdapter<DingTalkAccount> {
  readonly platform = 'dingtalk' as const;
  readonly accountFields = dingtalkAccount;
  /**
   * editMessage: a reply streams into an AI card where the account has a card_template_id;
   * otherwise beginReply declines and the answer goes out through sendText as markdown.
   */
  readonly capabilities = { editMessage: true, typing: false, images: true, files: true };
  /** The media upload API's limits: 20 MB per image or file. */
  readonly maxUploadBytes = { image: 20 * 1024 * 1024, file: 20 * 1024 * 1024 };
  readonly editIntervalMs = 500;
  private readonly api: DingTalkOpenApi;
  private readonly timeoutMs: number;
  private readonly pictures: PictureOptions;

  constructor(private readonly options: DingTalkOptions = {}) {
    this.timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.api = new DingTalkOpenApi({ timeoutMs: this.timeoutMs });
    this.pictures = {
      maxBytes: options.maxPictureBytes ?? 5 * 1024 * 1024,
      maxCount: 4,
      timeoutMs: this.timeoutMs,
    };
  }

  inboundStyle(): InboundStyle {
    return 'long-connection';
  }

  /** One stream connection; the manager's reconnect loop opens the next when it ends. */
  async connect(account: ChannelAccount<DingTalkAccount>, link: ConnectionLink): Promise<void> {
    // Messages are prepared (pictures downloaded) one after another, so they are delivered in order.
    let queue = Promise.resolve();
    await runStreamConnection({
      origin: originsOf(account.config).api,
      clientId: account.config.app_id ?? '',
      clientSecret: account.config.app_secret ?? '',
      signal: link.signal,
      pingIntervalMs: this.options.pingIntervalMs ?? 30_000,
      timeoutMs: this.timeoutMs,
      onOpen: () => link.connected(),
      onRobotMessage: (data) => {
        queue = queue.then(() => this.receive(account, data, link)).catch(() => undefined);
      },
      log: (level, fields, message) => this.log(level, { accountId: account.id, ...fields }, message),
    });
  }

  async sendText(
    account: ChannelAccount<DingTalkAccount>,
    chatId: string,
    text: string,
    options: SendTextOptions = {},
  ): Promise<SendResult> {
    // Answering a message: its sessionWebhook while valid, else the robot API.
    if (options.replyContext) {
      const message: InboundMessage = {
        platform: 'dingtalk',
        accountId: account.id,
        chatId,
        chatType: chatId.startsWith('cid') ? 'group' : 'dm',
        senderId: '',
        text: '',
        replyContext: options.replyContext,
      };
      return replyMarkdown(this.api, account, message, text, {
        ...(options.signal ? { signal: options.signal } : {}),
        timeoutMs: this.timeoutMs,
      });
    }
    return sendPieces(splitText(text, DINGTALK_TEXT_LIMIT), async (piece) => {
      const sent = await sendToChat(this.api, account, chatId, markdown(piece), options.signal);
      return sent.messageId;
    });
  }

  async sendImage(
    account: ChannelAccount<DingTalkAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    // photoURL takes a picture's URL or the media_id of an upload.
    const photoURL =
      media.kind === 'upload'
        ? await this.api.upload(account, 'image', media.data, media.fileName)
        : media.id;
    return sendToChat(this.api, account, chatId, { msgKey: 'sampleImageMsg', msgParam: { photoURL } });
  }

  async sendFile(
    account: ChannelAccount<DingTalkAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    const mediaId =
      media.kind === 'upload' ? await this.api.upload(account, 'file', media.data, media.fileName) : media.id;
    const fileName = media.kind === 'upload' ? media.fileName : 'file';
    return sendToChat(this.api, account, chatId, {
      msgKey: 'sampleFile',
      msgParam: { mediaId, fileName, fileType: fileTypeOf(fileName) },
    });
  }

  async beginReply(
    account: ChannelAccount<DingTalkAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream | undefined> {
    const template = account.config.card_template_id;
    // No card: the answer goes out as markdown through sendText, with the message's replyContext.
    return template ? startAiCard(this.api, account, message, template, signal) : undefined;
  }

  private async receive(
    account: ChannelAccount<DingTalkAccount>,
    data: string,
    link: ConnectionLink,
  ): Promise<void> {
    let parsed;
    try {
      parsed = parseRobotMessage(account.id, JSON.parse(data));
    } catch {
      this.log('warn', { accountId: account.id }, 'dingtalk: a robot message that is not JSON was skipped');
      return;
    }
    if (!parsed || link.signal.aborted) return;
    const images: InboundImage[] = [];
    const robotCode = replyContextOf(parsed.message)?.robotCode ?? account.config.app_id ?? '';
    for (const code of parsed.pictures.slice(0, this.pictures.maxCount)) {
      try {
        images.push(await downloadPicture(this.api, account, code, robotCode, this.pictures, link.signal));
      } catch (error) {
        if (link.signal.aborted) return;
        this.log(
          'warn',
          { accountId: account.id, err: errorMessage(error) },
          'dingtalk: a picture could not be downloaded',
        );
      }
    }
    link.deliver(images.length > 0 ? { ...parsed.message, images } : parsed.message);
  }

  private log(level: 'info' | 'warn', fields: object, message: string): void {
    this.options.logger?.[level]({ platform: 'dingtalk', ...fields }, message);
  }
}
