// Telegram adapter over the Bot API: long polling with getUpdates for inbound messages, sendMessage,
// sendPhoto and sendDocument for outbound ones. The bot token is the account's app_secret and the
// API origin its api_base (default https://api.telegram.org; a self-hosted Bot API server or a proxy
// may be set). The token is part of every request URL, so it is scrubbed from every message this
// adapter produces; redirects are refused so it is never sent to another origin.
import type { Logger } from '../../core/logger.ts';
import { sleep } from '../../core/async.ts';
import { AppError, errorMessage } from '../../core/errors.ts';
import type {
  ChannelAccount,
  ChannelAdapter,
  ConnectionLink,
  InboundMessage,
  InboundStyle,
  OutboundMedia,
  SendResult,
  SendTextOptions,
} from '../types.ts';
import { PlatformError, platformFailure, platformFetch } from '../platform-http.ts';
import { sendPieces, splitText } from '../split-text.ts';
import { telegramAccount, type TelegramAccount } from './account.ts';

export const TELEGRAM_API_BASE = 'https://api.telegram.org';
export const TELEGRAM_TEXT_LIMIT = 4096;
/** An empty long poll that came back sooner than this waits out the rest before the next one. */
const MIN_EMPTY_POLL_MS = 1000;
/** The largest Bot API reply read; anything bigger is refused unread. */
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

export interface TelegramOptions {
  /** Long-poll timeout of getUpdates, in seconds (default 30). */
  pollTimeoutSeconds?: number;
  /** Time limit of one send call, in ms (default 60000). */
  requestTimeoutMs?: number;
  /** A send answered with 429 is retried once when retry_after is at most this many seconds (default 5). */
  maxRetryAfterSeconds?: number;
  logger?: Logger;
}

interface TgUser {
  id: number;
  is_bot?: boolean;
}
interface TgMessage {
  message_id: number;
  chat: { id: number | string; type: string };
  from?: TgUser;
  sender_chat?: { id: number };
  text?: string;
}
interface TgUpdate {
  update_id: number;
  message?: TgMessage;
}
interface TgAnswer {
  ok: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

function tokenOf(account: ChannelAccount<TelegramAccount>): string {
  const token = account.config.app_secret;
  if (!token)
    throw new AppError('conflict', `telegram account "${account.id}" has no bot token (app_secret)`);
  return token;
}

function apiBase(account: ChannelAccount<TelegramAccount>): string {
  return (account.config.api_base ?? TELEGRAM_API_BASE).replace(/\/+$/, '');
}

export function toInbound(accountId: string, update: TgUpdate): InboundMessage | undefined {
  const message = update.message;
  if (typeof message !== 'object' || message === null) return undefined;
  if (typeof message.text !== 'string' || message.from?.is_bot) return undefined;
  if (typeof message.chat !== 'object' || message.chat === null) return undefined;
  if (typeof message.chat.id !== 'number' && typeof message.chat.id !== 'string') return undefined;
  const sender = message.from?.id ?? message.sender_chat?.id ?? message.chat.id;
  return {
    platform: 'telegram',
    accountId,
    chatId: String(message.chat.id),
    chatType: message.chat.type === 'private' ? 'dm' : 'group',
    senderId: String(sender),
    text: message.text,
    messageId: String(message.message_id),
  };
}

export class TelegramAdapter implements ChannelAdapter<TelegramAccount> {
  readonly platform = 'telegram' as const;
  readonly accountFields = telegramAccount;
  /** The Bot API's limits for uploads: 10 MB for photos, 50 MB for other files. */
  readonly maxUploadBytes = { image: 10 * 1024 * 1024, file: 50 * 1024 * 1024 };
  readonly capabilities = { editMessage: false, typing: true, images: false, files: true };

  constructor(private readonly options: TelegramOptions = {}) {}

  /** Where each account's polling goes on after a reconnect: past the last update seen. */
  private readonly offsets = new Map<string, number>();

  inboundStyle(): InboundStyle {
    return 'long-connection';
  }

  /**
   * Long polling with getUpdates until a poll fails or the link's signal aborts. The manager's
   * reconnect loop waits (honouring retry_after) and calls again; the offset is kept across calls.
   */
  async connect(account: ChannelAccount<TelegramAccount>, link: ConnectionLink): Promise<void> {
    const timeout = this.options.pollTimeoutSeconds ?? 30;
    const { signal } = link;
    while (!signal.aborted) {
      const started = Date.now();
      const offset = this.offsets.get(account.id);
      const result = await this.call(
        account,
        'getUpdates',
        { ...(offset !== undefined ? { offset } : {}), timeout, allowed_updates: ['message'] },
        signal,
        (timeout + 15) * 1000,
      );
      link.connected();
      const updates = Array.isArray(result) ? (result as unknown[]) : [];
      // The next getUpdates acknowledges these: it is sent only once every message is recorded.
      const records: Array<{ id: number; recorded: Promise<void> }> = [];
      for (const update of updates) {
        // The offset moves past every update first, so one malformed update cannot block the rest.
        if (typeof update !== 'object' || update === null) continue;
        const id = (update as { update_id?: unknown }).update_id;
        if (typeof id !== 'number' || !Number.isSafeInteger(id)) continue;
        this.offsets.set(account.id, Math.max(this.offsets.get(account.id) ?? 0, id + 1));
        try {
          const inbound = toInbound(account.id, update as TgUpdate);
          if (inbound && link.record) records.push({ id, recorded: link.record(inbound) });
          else if (inbound) link.deliver(inbound);
        } catch (error) {
          this.options.logger?.warn(
            { platform: 'telegram', accountId: account.id, err: errorMessage(error) },
            'telegram update skipped',
          );
        }
      }
      const results = await Promise.allSettled(records.map((entry) => entry.recorded));
      const unrecorded = records.filter((_entry, index) => results[index]?.status === 'rejected');
      if (unrecorded.length > 0) {
        // Not acknowledged: polled again from the first update that was not recorded.
        this.offsets.set(account.id, Math.min(...unrecorded.map((entry) => entry.id)));
        throw new Error('received messages could not be recorded; polling them again');
      }
      // A server that answers an empty long poll at once (a proxy ignoring `timeout`) must not
      // make this a busy loop.
      if (updates.length === 0 && Date.now() - started < MIN_EMPTY_POLL_MS) {
        await sleep(MIN_EMPTY_POLL_MS, signal).catch(() => undefined);
      }
    }
  }

  showTyping(
    account: ChannelAccount<TelegramAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): () => void {
    // A chat action lasts about five seconds on the client; it is renewed until the answer is sent.
    const send = (): void => {
      void this.call(
        account,
        'sendChatAction',
        { chat_id: message.chatId, action: 'typing' },
        signal,
        10_000,
      ).catch(() => undefined);
    };
    send();
    const timer = setInterval(send, 4500);
    return () => clearInterval(timer);
  }

  async sendText(
    account: ChannelAccount<TelegramAccount>,
    chatId: string,
    text: string,
    options: SendTextOptions = {},
  ): Promise<SendResult> {
    return sendPieces(splitText(text, TELEGRAM_TEXT_LIMIT), async (piece, index) => {
      const replyTo = index === 0 && options.replyTo ? Number(options.replyTo) : undefined;
      const sent = await this.send(
        account,
        'sendMessage',
        {
          chat_id: chatId,
          text: piece,
          ...(replyTo !== undefined && Number.isSafeInteger(replyTo)
            ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
            : {}),
        },
        options.signal,
      );
      return sent.messageId;
    });
  }

  sendImage(
    account: ChannelAccount<TelegramAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, 'sendPhoto', 'photo', chatId, media);
  }

  sendFile(
    account: ChannelAccount<TelegramAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, 'sendDocument', 'document', chatId, media);
  }

  private async sendMedia(
    account: ChannelAccount<TelegramAccount>,
    method: string,
    field: string,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    if (media.kind === 'reference') return this.send(account, method, { chat_id: chatId, [field]: media.id });
    const form = (): FormData => {
      const body = new FormData();
      body.set('chat_id', chatId);
      body.set(field, media.data, media.fileName);
      return body;
    };
    return this.send(account, method, form);
  }

  /** One send call, retried once after a short 429 wait. */
  private async send(
    account: ChannelAccount<TelegramAccount>,
    method: string,
    body: Record<string, unknown> | (() => FormData),
    signal?: AbortSignal,
  ): Promise<SendResult> {
    const timeoutMs = this.options.requestTimeoutMs ?? 60_000;
    const attempt = async (): Promise<SendResult> => {
      const result = (await this.call(account, method, body, signal, timeoutMs)) as { message_id?: unknown };
      return { messageId: String(result?.message_id ?? '') };
    };
    try {
      return await attempt();
    } catch (error) {
      const wait = error instanceof PlatformError ? error.retryAfterMs : undefined;
      if (wait === undefined || wait > (this.options.maxRetryAfterSeconds ?? 5) * 1000) throw error;
      await sleep(wait, signal);
      return attempt();
    }
  }

  private async call(
    account: ChannelAccount<TelegramAccount>,
    method: string,
    body: Record<string, unknown> | (() => FormData),
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<unknown> {
    const token = tokenOf(account);
    const what = `telegram ${method}`;
    const response = await platformFetch({
      what,
      url: `${apiBase(account)}/bot${token}/${method}`,
      method: 'POST',
      ...(typeof body === 'function' ? { body: body() } : { json: body }),
      signal,
      timeoutMs,
      maxBytes: MAX_REPLY_BYTES,
      secrets: [token],
    });
    const answer = response.json() as unknown as Partial<TgAnswer>;
    if (answer.ok !== true) {
      const retryAfter = answer.parameters?.retry_after;
      throw platformFailure(what, {
        status: response.status,
        code: answer.error_code ?? response.status,
        message: String(answer.description ?? 'no description'),
        secrets: [token],
        retryAfterMs: typeof retryAfter === 'number' && retryAfter >= 0 ? retryAfter * 1000 : undefined,
      });
    }
    return answer.result;
  }
}
