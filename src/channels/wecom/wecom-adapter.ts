// The WeCom (企业微信) adapter. An account is one of two kinds, chosen by `mode`:
// - bot (default): a smart robot on the long connection, bot id in app_id and secret in app_secret;
//   answers stream into one stream message (wecom-bot.ts).
// - app: a self-built app whose callback URL is /webhooks/wecom/{accountId}; corp id in app_id,
//   agent_id, app_secret, and the callback's token and encoding_aes_key; answers go through the app
//   message API, whole (wecom-app.ts).
// api_base points either at another origin: the long-connection server (its http(s) scheme becomes
// ws(s)) or the app API (default https://qyapi.weixin.qq.com).
import type { Logger } from '../../core/logger.ts';
import type {
  ChannelAccount,
  ChannelAdapter,
  ConnectionLink,
  InboundMessage,
  InboundStyle,
  OutboundMedia,
  ReplyStream,
  SendResult,
  SendTextOptions,
  WebhookReply,
  WebhookRequest,
} from '../types.ts';
import { AppError } from '../../core/errors.ts';
import type { WecomApp, WecomAppOptions } from './wecom-app.ts';
import type { WecomBot, WecomBotOptions } from './wecom-bot.ts';
import { modeOf, wecomAccount, type WecomAccount } from './account.ts';

export interface WecomOptions extends Omit<WecomBotOptions, 'logger'>, Omit<WecomAppOptions, 'logger'> {
  /** Least time between two edits of a streamed answer, in ms (default 1000). */
  editIntervalMs?: number;
  logger?: Logger;
}

export class WecomAdapter implements ChannelAdapter<WecomAccount> {
  readonly platform = 'wecom' as const;
  readonly accountFields = wecomAccount;
  /** WeCom's limits for temporary media: 10 MB per image, 20 MB per file. */
  readonly maxUploadBytes = { image: 10 * 1024 * 1024, file: 20 * 1024 * 1024 };
  /** Capabilities are per platform: in app mode beginReply declines and answers are plain messages. */
  readonly capabilities = { editMessage: true, typing: false, images: true, files: true };
  readonly editIntervalMs: number;
  // The SDK and the callback crypto (about 20 MB) load with the first wecom account, not at start.
  private botInstance: Promise<WecomBot> | undefined;
  private appInstance: Promise<WecomApp> | undefined;

  constructor(private readonly options: WecomOptions = {}) {
    this.editIntervalMs = options.editIntervalMs ?? 1000;
  }

  private bot(): Promise<WecomBot> {
    this.botInstance ??= import('./wecom-bot.ts').then((module) => new module.WecomBot(this.options));
    return this.botInstance;
  }

  private app(): Promise<WecomApp> {
    this.appInstance ??= import('./wecom-app.ts').then((module) => new module.WecomApp(this.options));
    return this.appInstance;
  }

  inboundStyle(account: WecomAccount): InboundStyle {
    return modeOf(account) === 'app' ? 'webhook' : 'long-connection';
  }

  async connect(account: ChannelAccount<WecomAccount>, link: ConnectionLink): Promise<void> {
    return (await this.bot()).connect(account, link);
  }

  async handleWebhook(
    account: ChannelAccount<WecomAccount>,
    request: WebhookRequest,
    deliver: (message: InboundMessage) => void,
  ): Promise<WebhookReply> {
    return (await this.app()).handleWebhook(account, request, deliver);
  }

  async beginReply(
    account: ChannelAccount<WecomAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream | undefined> {
    // App mode cannot edit a sent message: the answer goes out with sendText when it is done.
    return modeOf(account.config) === 'app'
      ? undefined
      : (await this.bot()).beginReply(account, message, signal);
  }

  async sendText(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    text: string,
    _options?: SendTextOptions,
  ): Promise<SendResult> {
    if (text.trim() === '') throw new AppError('invalid', 'wecom: the message is empty');
    return modeOf(account.config) === 'app'
      ? (await this.app()).sendText(account, chatId, text)
      : (await this.bot()).sendText(account, chatId, text);
  }

  sendImage(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, chatId, 'image', media);
  }

  sendFile(account: ChannelAccount<WecomAccount>, chatId: string, media: OutboundMedia): Promise<SendResult> {
    return this.sendMedia(account, chatId, 'file', media);
  }

  private async sendMedia(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    kind: 'image' | 'file',
    media: OutboundMedia,
  ): Promise<SendResult> {
    return modeOf(account.config) === 'app'
      ? (await this.app()).sendMedia(account, chatId, kind, media)
      : (await this.bot()).sendMedia(account, chatId, kind, media);
  }
}
