// The Slack adapter. An account is a Slack app installed in one workspace: its bot token (xoxb-) is
// app_secret, and it receives events in one of two modes, chosen by its fields:
// - Socket Mode (app_token, the app-level xapp- token, is set): a WebSocket the bot opens through
//   @slack/bolt; no public URL needed (socket-mode.ts);
// - Events API (no app_token, signing_secret set): Slack POSTs events to /webhooks/slack/{accountId},
//   verified with the signing secret (events-api.ts).
// Either way an answer is a "thinking" message in the message's thread, edited as it streams.
// api_base points the Web API (and through apps.connections.open the WebSocket) elsewhere.
import type { Logger } from '../../core/logger.ts';
import { waitAtMost } from '../../core/async.ts';
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
  WebhookReply,
  WebhookRequest,
} from '../types.ts';
import { readEventsRequest } from './events-api.ts';
import { parseSlackEvent, type SlackFileRef } from './message-event.ts';
import { SlackApi, credentialsOf, type SlackCredentials } from './slack-api.ts';
import { SlackSender } from './slack-send.ts';
import { connectSocketMode } from './socket-mode.ts';
import { slackAccount, type SlackAccount } from './account.ts';

export interface SlackOptions {
  /** Least time between two edits of a streamed answer, in ms (default 1000: Slack allows about one a second). */
  editIntervalMs?: number;
  /** Largest image fetched from a user's message, in bytes (default 5 MB). */
  maxImageBytes?: number;
  /** How many images of one message reach the model (default 4). */
  maxImages?: number;
  /** Time limit of one Web API call, in ms (default 30000). */
  requestTimeoutMs?: number;
  /** The longest Retry-After of a 429 waited for, in seconds (default 120). */
  maxRetryAfterSeconds?: number;
  /** The clock of the signature window, in seconds since the epoch (tests). */
  nowSeconds?: () => number;
  logger?: Logger;
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;

export const modeOf = (account: SlackAccount): 'socket' | 'events' =>
  account.app_token ? 'socket' : account.signing_secret ? 'events' : 'socket';

export class SlackAdapter implements ChannelAdapter<SlackAccount> {
  readonly platform = 'slack' as const;
  readonly accountFields = slackAccount;
  readonly capabilities = { editMessage: true, typing: false, images: true, files: true };
  /** Slack takes files up to 1 GB; these bound what is read into memory to send one. */
  readonly maxUploadBytes = { image: 20 * 1024 * 1024, file: 50 * 1024 * 1024 };
  readonly editIntervalMs: number;
  private readonly api: SlackApi;
  private readonly sender: SlackSender;
  private readonly logger: Logger | undefined;

  constructor(private readonly options: SlackOptions = {}) {
    this.editIntervalMs = options.editIntervalMs ?? 1000;
    this.logger = options.logger;
    this.api = new SlackApi({
      logger: this.logger,
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.maxRetryAfterSeconds ? { maxRetryAfterSeconds: options.maxRetryAfterSeconds } : {}),
    });
    this.sender = new SlackSender(this.api);
  }

  inboundStyle(account: SlackAccount): InboundStyle {
    return modeOf(account) === 'events' ? 'webhook' : 'long-connection';
  }

  connect(account: ChannelAccount<SlackAccount>, link: ConnectionLink): Promise<void> {
    return connectSocketMode(account, link, {
      logger: this.logger,
      onEvent: (current, event, botUserId) => void this.receive(current, event, botUserId, link.deliver),
    });
  }

  async handleWebhook(
    account: ChannelAccount<SlackAccount>,
    request: WebhookRequest,
    deliver: (message: InboundMessage) => void,
  ): Promise<WebhookReply> {
    const now = this.options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    const outcome = readEventsRequest(request, account.config.signing_secret, now);
    if ('event' in outcome) {
      // The message is handed on (and recorded) before the answer. Slack redelivers what is not
      // acknowledged within 3 seconds, so an event with files (pictures to fetch) waits 2 s at most.
      const receiving = this.botUserId(account, outcome.authorizedUserId).then((botUserId) =>
        this.receive(account, outcome.event, botUserId, deliver),
      );
      const files = (outcome.event as { files?: unknown } | null)?.files;
      if (Array.isArray(files) && files.length > 0) await waitAtMost(receiving, 2_000);
      else await receiving;
    }
    return outcome.reply;
  }

  /** The bot's user id for the Events API: auth.test (asked once), else the event's authorization. */
  private async botUserId(
    account: ChannelAccount<SlackAccount>,
    authorized: string | undefined,
  ): Promise<string | undefined> {
    try {
      return (await this.api.identity(credentialsOf(account))).userId || authorized;
    } catch (error) {
      this.logger?.warn(
        { platform: 'slack', accountId: account.id, err: errorMessage(error) },
        'slack auth.test failed',
      );
      return authorized;
    }
  }

  /** Turns one event into a message (its images fetched) and hands it on; never throws. */
  private async receive(
    account: ChannelAccount<SlackAccount>,
    event: unknown,
    botUserId: string | undefined,
    deliver: (message: InboundMessage) => void,
  ): Promise<void> {
    try {
      const parsed = parseSlackEvent(event, account.id, botUserId);
      if (!parsed) return;
      const { message } = parsed;
      if (parsed.files.length > 0) {
        const { images, notes } = await this.fetchImages(account, parsed.files);
        if (images.length > 0) message.images = images;
        if (notes.length > 0)
          message.text = [message.text, ...notes].filter((part) => part !== '').join('\n');
      }
      deliver(message);
    } catch (error) {
      this.logger?.warn(
        { platform: 'slack', accountId: account.id, err: errorMessage(error) },
        'could not read a slack event',
      );
    }
  }

  /** Images reach the model as data: URLs; other files (and images that fail) as a note in the text. */
  private async fetchImages(
    account: ChannelAccount<SlackAccount>,
    files: SlackFileRef[],
  ): Promise<{ images: InboundImage[]; notes: string[] }> {
    const credentials: SlackCredentials = credentialsOf(account);
    const maxBytes = this.options.maxImageBytes ?? 5 * 1024 * 1024;
    const images: InboundImage[] = [];
    const notes: string[] = [];
    for (const file of files) {
      const type = file.mimetype.toLowerCase();
      if (!IMAGE_TYPES.test(type) || images.length >= (this.options.maxImages ?? 4)) {
        notes.push(`[attached file: ${file.name}]`);
        continue;
      }
      if (file.size > maxBytes) {
        notes.push(`[image ${file.name} is too large to read]`);
        continue;
      }
      try {
        const bytes = await this.api.download(credentials, file.url, maxBytes);
        images.push({ url: `data:${type};base64,${bytes.toString('base64')}` });
      } catch (error) {
        this.logger?.warn(
          { platform: 'slack', accountId: account.id, err: errorMessage(error) },
          'could not fetch an image of a slack message',
        );
        notes.push(`[image ${file.name} could not be read]`);
      }
    }
    return { images, notes };
  }

  sendText(
    account: ChannelAccount<SlackAccount>,
    chatId: string,
    text: string,
    options: SendTextOptions = {},
  ): Promise<SendResult> {
    return this.sender.sendText(credentialsOf(account), chatId, text, options.threadId, options.signal);
  }

  sendImage(
    account: ChannelAccount<SlackAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sender.sendMedia(credentialsOf(account), chatId, 'image', media);
  }

  sendFile(account: ChannelAccount<SlackAccount>, chatId: string, media: OutboundMedia): Promise<SendResult> {
    return this.sender.sendMedia(credentialsOf(account), chatId, 'file', media);
  }

  beginReply(
    account: ChannelAccount<SlackAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream> {
    return this.sender.beginReply(
      credentialsOf(account),
      message.chatId,
      message.threadId,
      this.editIntervalMs,
      signal,
    );
  }

  resumeReply(
    account: ChannelAccount<SlackAccount>,
    message: InboundMessage,
    ref: string,
    signal: AbortSignal,
  ): Promise<ReplyStream | undefined> {
    const stream = this.sender.resumeReply(
      credentialsOf(account),
      ref,
      message.threadId,
      this.editIntervalMs,
      signal,
    );
    return Promise.resolve(stream);
  }
}
