// WeCom smart robot (mode bot) over the long connection of @wecom/aibot-node-sdk: one WSClient per
// connect() call, authenticated with the bot id (app_id) and secret (app_secret), its own reconnects
// switched off so that the manager's reconnect loop is the only one. The SDK keeps the heartbeat (a
// `ping` frame per interval; two unanswered ones close the socket). Answers stream as one stream
// message (aibot_respond_msg on the message's req_id); outbound sends and media go through the
// active-push command (aibot_send_msg) and the chunked media upload of the same connection.
import type { Logger } from '../../core/logger.ts';
import { WSClient, generateReqId, type Logger as SdkLogger, type WsFrame } from '@wecom/aibot-node-sdk';
import { AppError } from '../../core/errors.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import type {
  ChannelAccount,
  ConnectionLink,
  InboundMessage,
  OutboundMedia,
  ReplyStream,
  SendResult,
} from '../types.ts';
import { downloadImage, readBotMessage } from './bot-message.ts';
import { splitUtf8 } from './media.ts';
import { mediaIdOf } from '../media-id.ts';
import { sendPieces } from '../split-text.ts';
import { PlatformError } from '../platform-http.ts';
import type { WecomAccount } from './account.ts';

export const WECOM_WS_URL = 'wss://openws.work.weixin.qq.com';
/** Longest content of one stream frame, in UTF-8 bytes (the protocol's limit). */
export const STREAM_CONTENT_LIMIT = 20480;
/** Longest markdown message pushed with aibot_send_msg, in UTF-8 bytes. */
export const MARKDOWN_LIMIT = 4096;
/** Content of the first stream frame, shown until the answer starts. */
export const THINKING = '…';
/** Wait before connecting again after another connection took the bot over. */
const REPLACED_RETRY_MS = 60_000;

export interface WecomBotOptions {
  /** Interval of the heartbeat, in ms (default 30000, as the protocol asks). */
  heartbeatIntervalMs?: number;
  /** Longest wait for the subscription's answer, in ms (default 15000). */
  authTimeoutMs?: number;
  /** Largest image taken from a user, in bytes (default 5 MB). */
  maxImageBytes?: number;
  /** Time limit of one image download, in ms (default 30000). */
  imageTimeoutMs?: number;
  logger?: Logger;
}

function credentials(account: ChannelAccount<WecomAccount>): { botId: string; secret: string } {
  const { app_id: botId, app_secret: secret } = account.config;
  if (!botId || !secret) {
    throw new AppError('conflict', `wecom account "${account.id}" needs app_id (bot id) and app_secret`);
  }
  return { botId, secret };
}

/** The long-connection URL: api_base with its scheme turned into ws(s), else WeCom's own. */
export function wsUrlOf(account: ChannelAccount<WecomAccount>): string {
  const base = account.config.api_base;
  if (!base) return WECOM_WS_URL;
  const url = new URL(base);
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  return url.toString();
}

/** Waits for the server's receipt of a frame; a refusal (a bare frame in the SDK) becomes a PlatformError. */
async function acked<T>(command: string, pending: Promise<T>, secret: string): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof Error)
      throw new PlatformError(`wecom ${command}: ${scrubSecrets(error.message, [secret])}`);
    const frame = (error ?? {}) as { errcode?: unknown; errmsg?: unknown };
    const code = typeof frame.errcode === 'number' ? frame.errcode : undefined;
    const why = scrubSecrets(String(frame.errmsg ?? 'no errmsg'), [secret]).slice(0, 300);
    throw new PlatformError(`wecom ${command} failed (${code ?? 'no errcode'}): ${why}`, { code });
  }
}

export class WecomBot {
  /** The authenticated client of each connected account. */
  private readonly live = new Map<string, WSClient>();

  constructor(private readonly options: WecomBotOptions = {}) {}

  async connect(account: ChannelAccount<WecomAccount>, link: ConnectionLink): Promise<void> {
    const { botId, secret } = credentials(account);
    const scrub = (text: string): string => scrubSecrets(text, [secret]);
    const client = new WSClient({
      botId,
      secret,
      wsUrl: wsUrlOf(account),
      maxReconnectAttempts: 0,
      maxAuthFailureAttempts: 0,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 30_000,
      wsOptions: { handshakeTimeout: 15_000, maxPayload: 4 * 1024 * 1024 },
      logger: this.sdkLogger(account, scrub),
    });
    await new Promise<void>((resolve, reject) => {
      let ended = false;
      let authenticated = false;
      let replaced = false;
      let lastError: string | undefined;
      const end = (error?: Error): void => {
        if (ended) return;
        ended = true;
        clearTimeout(authTimer);
        link.signal.removeEventListener('abort', onAbort);
        if (this.live.get(account.id) === client) this.live.delete(account.id);
        client.removeAllListeners();
        client.disconnect();
        if (error) reject(error);
        else resolve();
      };
      const onAbort = (): void => end();
      const authTimer = setTimeout(
        () => end(new PlatformError('wecom: the long-connection server did not answer the subscription')),
        this.options.authTimeoutMs ?? 15_000,
      );
      client.on('authenticated', () => {
        authenticated = true;
        clearTimeout(authTimer);
        this.live.set(account.id, client);
        link.connected();
      });
      client.on('error', (error) => {
        lastError = scrub(error.message).slice(0, 300);
      });
      client.on('event.disconnected_event', () => {
        replaced = true;
      });
      client.on('message', (frame) => this.receive(account, frame, link));
      client.on('disconnected', () => {
        if (replaced) {
          end(
            new PlatformError(
              'wecom: another connection to this bot took over (is a second server using the same bot id?)',
              { retryAfterMs: REPLACED_RETRY_MS },
            ),
          );
        } else if (authenticated) end();
        else
          end(new PlatformError(`wecom: ${lastError ?? 'the long-connection server closed the connection'}`));
      });
      if (link.signal.aborted) return end();
      link.signal.addEventListener('abort', onAbort, { once: true });
      client.connect();
    });
  }

  /** Opens the stream message at once; updates show the answer so far, finish closes it. */
  async beginReply(
    account: ChannelAccount<WecomAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream> {
    const reqId = message.replyContext?.['req_id'];
    if (!reqId) throw new AppError('invalid', 'wecom: the message carries no req_id to answer on');
    const { secret } = credentials(account);
    const frame = { headers: { req_id: reqId } };
    const streamId = generateReqId('stream');
    const show = (content: string, finish: boolean): Promise<WsFrame> =>
      acked('aibot_respond_msg', this.client(account).replyStream(frame, streamId, content, finish), secret);
    await show(THINKING, false);
    return {
      update: async (text) => {
        await show(splitUtf8(text, STREAM_CONTENT_LIMIT)[0] ?? '', false);
      },
      finish: async (text) => {
        const [first = '', ...rest] = splitUtf8(text, STREAM_CONTENT_LIMIT);
        try {
          await show(first, true);
        } catch (error) {
          // A stream must finish within minutes of its first frame, and on the connection it came
          // from: when that fails, the answer still reaches the chat as a message of its own.
          if (signal.aborted) throw error;
          this.options.logger?.warn(
            { platform: 'wecom', accountId: account.id, err: (error as Error).message },
            'wecom stream not finished; the answer is sent as a message',
          );
          await this.sendText(account, message.chatId, text);
          return;
        }
        for (const piece of rest) await this.sendText(account, message.chatId, piece);
      },
    };
  }

  async sendText(account: ChannelAccount<WecomAccount>, chatId: string, text: string): Promise<SendResult> {
    const { secret } = credentials(account);
    return sendPieces(splitUtf8(text, MARKDOWN_LIMIT), async (piece) => {
      const ack = await acked(
        'aibot_send_msg',
        this.client(account).sendMessage(chatId, { msgtype: 'markdown', markdown: { content: piece } }),
        secret,
      );
      return messageIdOf(ack);
    });
  }

  async sendMedia(
    account: ChannelAccount<WecomAccount>,
    chatId: string,
    kind: 'image' | 'file',
    media: OutboundMedia,
  ): Promise<SendResult> {
    const { secret } = credentials(account);
    const mediaId = await mediaIdOf(media, async (data, filename) => {
      const bytes = Buffer.from(await data.arrayBuffer());
      const uploaded = await acked(
        'aibot_upload_media',
        this.client(account).uploadMedia(bytes, { type: kind, filename }),
        secret,
      );
      return uploaded.media_id;
    });
    const ack = await acked(
      'aibot_send_msg',
      this.client(account).sendMediaMessage(chatId, kind, mediaId),
      secret,
    );
    return { messageId: messageIdOf(ack) };
  }

  private client(account: ChannelAccount<WecomAccount>): WSClient {
    const client = this.live.get(account.id);
    if (!client?.isConnected) {
      throw new AppError('unavailable', `wecom account "${account.id}" is not connected right now`);
    }
    return client;
  }

  private receive(account: ChannelAccount<WecomAccount>, frame: unknown, link: ConnectionLink): void {
    const read = readBotMessage(account.id, frame);
    if (!read) return;
    if (read.images.length === 0) return link.deliver(read.message);
    const options = {
      maxBytes: this.options.maxImageBytes ?? 5 * 1024 * 1024,
      timeoutMs: this.options.imageTimeoutMs ?? 30_000,
      signal: link.signal,
    };
    void Promise.allSettled(read.images.map((image) => downloadImage(image, options))).then((results) => {
      const images = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      for (const result of results) {
        if (result.status === 'rejected') {
          this.options.logger?.warn(
            { platform: 'wecom', accountId: account.id, err: (result.reason as Error).message },
            'wecom image skipped',
          );
        }
      }
      link.deliver(images.length > 0 ? { ...read.message, images } : read.message);
    });
  }

  /** The SDK's log lines, scrubbed, as warnings of the channel logger; its chatter is dropped. */
  private sdkLogger(account: ChannelAccount<WecomAccount>, scrub: (text: string) => string): SdkLogger {
    const warn = (message: string, ...args: unknown[]): void =>
      this.options.logger?.warn(
        {
          platform: 'wecom',
          accountId: account.id,
          sdk: scrub([message, ...args.map(String)].join(' ')).slice(0, 500),
        },
        'wecom connection',
      );
    return { debug: () => undefined, info: () => undefined, warn, error: warn };
  }
}

function messageIdOf(ack: WsFrame): string {
  const id = (ack.body as { msgid?: unknown } | undefined)?.msgid;
  return typeof id === 'string' && id !== '' ? id : ack.headers.req_id;
}
