// Discord adapter: the gateway (through @discordjs/ws) for DMs and guild messages that mention the
// bot, the REST API (through @discordjs/rest, which honours 429 retry_after) for answers, typing,
// pictures and files. The bot token is the account's app_secret; app_id, the application id, is only
// checked against the one Discord reports. api_base points REST, and through GET /gateway/bot the
// gateway, at another origin (a proxy, or a fake in tests).
import type { Logger } from '../../core/logger.ts';
import type {
  APIMessage,
  GatewayReadyDispatchData,
  RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { AllowedMentionsTypes, GatewayDispatchEvents } from 'discord-api-types/v10';
import type { RawFile } from '@discordjs/rest';
import { errorMessage, invalid } from '../../core/errors.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
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
import { DiscordRest, tokenOf, type DiscordRestOptions } from './discord-rest.ts';
import type { GatewaySession } from './gateway.ts';
import { readPictures, toInbound, type DiscordMessage, type PictureOptions } from './message-event.ts';
import { splitMessage } from './split-message.ts';
import { sendPieces } from '../split-text.ts';
import { pieceKey } from '../send-key.ts';
import { discordAccount, SNOWFLAKE, type DiscordAccount } from './account.ts';

export interface DiscordOptions extends DiscordRestOptions {
  /** Time between two typing calls, in ms (default 8000: the indicator shows for about ten seconds). */
  typingIntervalMs?: number;
  pictures?: Partial<PictureOptions>;
  logger?: Logger;
}

/** Discord's upload limit of a message without boosts. */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
/** Answers may mention users; never @everyone, @here or roles, whatever the model writes. */
// Discord's values, written here so discord-api-types (types only) never loads at start.
const ALLOWED_MENTIONS = { parse: ['users' as AllowedMentionsTypes.User], replied_user: true };
const MESSAGE_CREATE = 'MESSAGE_CREATE' as GatewayDispatchEvents.MessageCreate;
const Routes = {
  channelTyping: (channel: string) => `/channels/${channel}/typing` as const,
  channelMessages: (channel: string) => `/channels/${channel}/messages` as const,
};

interface AccountState {
  /** The token the session belongs to: another token starts a new session. */
  token: string;
  session: GatewaySession;
  botUserId?: string | undefined;
}

function channelId(chatId: string): string {
  if (!SNOWFLAKE.test(chatId)) throw invalid('chatId: a Discord channel id is a number (a snowflake)');
  return chatId;
}

export class DiscordAdapter implements ChannelAdapter<DiscordAccount> {
  readonly platform = 'discord' as const;
  readonly accountFields = discordAccount;
  readonly capabilities = { editMessage: false, typing: true, images: true, files: true };
  readonly maxUploadBytes = { image: MAX_UPLOAD_BYTES, file: MAX_UPLOAD_BYTES };
  private readonly rest: DiscordRest;
  private readonly states = new Map<string, AccountState>();

  constructor(private readonly options: DiscordOptions = {}) {
    this.rest = new DiscordRest(options);
  }

  inboundStyle(): InboundStyle {
    return 'long-connection';
  }

  async connect(account: ChannelAccount<DiscordAccount>, link: ConnectionLink): Promise<void> {
    const token = tokenOf(account);
    let state = this.states.get(account.id);
    if (state?.token !== token) {
      state = { token, session: {} };
      this.states.set(account.id, state);
    }
    const current = state;
    // The gateway (and @discordjs/ws under it) is loaded with the first connection.
    const { runGateway } = await import('./gateway.ts');
    await runGateway(
      token,
      await this.rest.client(account),
      current.session,
      {
        ready: (data) => {
          // A READY without its user leaves mentions unknown (guild messages unanswered), not a crash.
          const user = (data as Partial<GatewayReadyDispatchData> | undefined)?.user;
          current.botUserId = typeof user?.id === 'string' ? user.id : undefined;
          this.checkApplication(account, data);
          link.connected();
        },
        resumed: () => link.connected(),
        dispatch: (payload) => {
          if (payload.t === MESSAGE_CREATE) this.receive(account, current, payload.d, link);
        },
        failed: (error) =>
          this.options.logger?.warn(
            { platform: 'discord', accountId: account.id, err: scrubSecrets(errorMessage(error), [token]) },
            'discord gateway event skipped',
          ),
      },
      link.signal,
    ).finally(() => {
      // A stopped account (disabled, deleted, reconfigured) keeps nothing of its session or token here.
      if (link.signal.aborted && this.states.get(account.id) === current) this.states.delete(account.id);
    });
  }

  showTyping(
    account: ChannelAccount<DiscordAccount>,
    message: InboundMessage,
    signal: AbortSignal,
  ): () => void {
    const send = (): void => {
      if (signal.aborted) return;
      void this.rest
        .call(
          account,
          'POST /channels/{id}/typing',
          (rest, linked) =>
            rest.post(Routes.channelTyping(channelId(message.chatId)), {
              ...(linked ? { signal: linked } : {}),
            }),
          signal,
        )
        .catch(() => undefined);
    };
    send();
    const timer = setInterval(send, this.options.typingIntervalMs ?? 8000);
    // The account stopping (disconnect, reconfiguration) ends the indicator too, not only the caller.
    const stop = (): void => {
      clearInterval(timer);
      signal.removeEventListener('abort', stop);
    };
    signal.addEventListener('abort', stop, { once: true });
    return stop;
  }

  async sendText(
    account: ChannelAccount<DiscordAccount>,
    chatId: string,
    text: string,
    options: SendTextOptions = {},
  ): Promise<SendResult> {
    const channel = channelId(chatId);
    const replyTo = options.replyTo ?? options.replyContext?.['messageId'];
    return sendPieces(splitMessage(text), async (piece, index) => {
      const body: RESTPostAPIChannelMessageJSONBody = {
        content: piece,
        allowed_mentions: ALLOWED_MENTIONS,
        // Discord returns the message already created with this nonce instead of a second one.
        ...(options.idempotencyKey !== undefined
          ? { nonce: pieceKey(options.idempotencyKey, index, 25), enforce_nonce: true }
          : {}),
        ...(index === 0 && replyTo !== undefined && SNOWFLAKE.test(replyTo)
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {}),
      };
      const sent = await this.rest.call<APIMessage>(
        account,
        'POST /channels/{id}/messages',
        (rest, signal) => rest.post(Routes.channelMessages(channel), { body, ...(signal ? { signal } : {}) }),
        options.signal,
      );
      return sent.id;
    });
  }

  sendImage(
    account: ChannelAccount<DiscordAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, chatId, media, 'image');
  }

  sendFile(
    account: ChannelAccount<DiscordAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    return this.sendMedia(account, chatId, media, 'file');
  }

  private async sendMedia(
    account: ChannelAccount<DiscordAccount>,
    chatId: string,
    media: OutboundMedia,
    kind: 'image' | 'file',
  ): Promise<SendResult> {
    const channel = channelId(chatId);
    let request: { body: RESTPostAPIChannelMessageJSONBody; files?: RawFile[] };
    if (media.kind === 'reference') {
      // Discord has no ids of uploaded files: a key is the https URL of the picture or file.
      let url: URL | undefined;
      try {
        url = new URL(media.id);
      } catch {
        url = undefined;
      }
      if (url?.protocol !== 'https:') {
        throw invalid(
          `${kind}Key: on discord, a key is the https URL of the ${kind === 'image' ? 'picture' : 'file'}`,
        );
      }
      request = {
        body: kind === 'image' ? { embeds: [{ image: { url: url.href } }] } : { content: url.href },
      };
    } else {
      const extension = media.fileName.split('.').pop()?.toLowerCase() ?? '';
      request = {
        body: { attachments: [{ id: '0', filename: media.fileName }], allowed_mentions: { parse: [] } },
        files: [
          {
            name: media.fileName,
            data: Buffer.from(await media.data.arrayBuffer()),
            contentType: (kind === 'image' && IMAGE_TYPES[extension]) || 'application/octet-stream',
          },
        ],
      };
    }
    const sent = await this.rest.call<APIMessage>(account, 'POST /channels/{id}/messages', (rest) =>
      rest.post(Routes.channelMessages(channel), request),
    );
    return { messageId: sent.id };
  }

  private checkApplication(account: ChannelAccount<DiscordAccount>, data: GatewayReadyDispatchData): void {
    const expected = account.config.app_id;
    if (expected !== undefined && data.application?.id !== expected) {
      this.options.logger?.warn(
        { platform: 'discord', accountId: account.id, applicationId: data.application?.id },
        'discord: the bot token belongs to another application than app_id',
      );
    }
  }

  private receive(
    account: ChannelAccount<DiscordAccount>,
    state: AccountState,
    message: DiscordMessage,
    link: ConnectionLink,
  ): void {
    const warn = (detail: object, text: string): void => this.options.logger?.warn(detail, text);
    try {
      const inbound = toInbound(account.id, state.botUserId, message);
      if (!inbound) return;
      const unanswered =
        inbound.chatType === 'group' &&
        inbound.mentioned === false &&
        account.config.group_require_mention !== false;
      if (unanswered || !Array.isArray(message.attachments) || message.attachments.length === 0) {
        link.deliver(inbound);
        return;
      }
      const pictures: PictureOptions = {
        maxBytes: this.options.pictures?.maxBytes ?? 8 * 1024 * 1024,
        maxCount: this.options.pictures?.maxCount ?? 4,
        timeoutMs: this.options.pictures?.timeoutMs ?? 20_000,
      };
      void readPictures(account, message, pictures, warn, link.signal)
        .then((images) => link.deliver({ ...inbound, ...(images.length > 0 ? { images } : {}) }))
        .catch(() => undefined);
    } catch (error) {
      warn(
        { platform: 'discord', accountId: account.id, err: errorMessage(error) },
        'discord message skipped',
      );
    }
  }
}
