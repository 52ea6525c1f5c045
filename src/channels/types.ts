// The platform-neutral shapes of the channel core. Each messaging platform implements one
// ChannelAdapter; routing, policies, sessions and agent turns are shared by all of them.
import type { AccountConfig, Platform } from '../config/schema.ts';
import type { PlatformAccount } from './account-schema.ts';

/** An image a user sent, as the model will see it: a data: URL (or a URL the model can fetch). */
export interface InboundImage {
  url: string;
}

/** One message received from a chat platform, already reduced to what routing needs. */
export interface InboundMessage {
  platform: Platform;
  accountId: string;
  /** Where a reply goes: the DM or the group. */
  chatId: string;
  chatType: 'dm' | 'group';
  senderId: string;
  text: string;
  /** The platform's id of the message: replies refer to it, and redeliveries are dropped by it. */
  messageId?: string;
  /** A thread the message belongs to (Slack, Feishu topics): the reply goes there too. */
  threadId?: string;
  /** Whether the bot is mentioned; undefined when the platform does not say (Telegram). */
  mentioned?: boolean;
  images?: InboundImage[];
  /** What the adapter needs to answer this very message (a DingTalk sessionWebhook, a WeCom req_id). */
  replyContext?: Record<string, string>;
}

/** The account an adapter works for, as configured when the adapter was started or called. */
export interface ChannelAccount<Config extends AccountConfig = AccountConfig> {
  platform: Platform;
  id: string;
  /** The account's fields, checked against the platform's accountFields. */
  config: Config;
}

export interface SendResult {
  /** The platform's id of the (first) message sent. */
  messageId: string;
}

/** Media to send: a local file already checked to be safe, or a reference the platform already holds. */
export type OutboundMedia =
  { kind: 'upload'; data: Blob; fileName: string } | { kind: 'reference'; id: string };

export interface SendTextOptions {
  /** Reply to this message of the chat (used for answers in groups). */
  replyTo?: string | undefined;
  /** Post in this thread of the chat. */
  threadId?: string | undefined;
  /** The replyContext of the message being answered (a DingTalk sessionWebhook, say). */
  replyContext?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Names this send (send-key.ts): sent again with the same key, by an instance that took the
   * message over after its owner died mid-send, it is dropped by platforms that support it (Feishu,
   * Discord); the others ignore it.
   */
  idempotencyKey?: string | undefined;
}

/** What an adapter can do beyond sending text. */
export interface ChannelCapabilities {
  /** Shows a reply at once and edits it in place as the answer streams (beginReply). */
  editMessage: boolean;
  /** Shows a typing indicator while the agent works (showTyping). */
  typing: boolean;
  /** Images from users reach the model; send-image works. */
  images: boolean;
  /** send-file works. */
  files: boolean;
}

/** How an account receives messages. */
export type InboundStyle = 'long-connection' | 'webhook';

/** Connection state of an account, shown on every account in the API. */
export interface AccountStatus {
  state: 'connected' | 'connecting' | 'error' | 'disabled';
  error?: string;
  /** When the account entered this state (ISO 8601). */
  since: string;
  /** Clustered mode: the instance holding the account's connection. */
  instance?: string;
}

/** What a long connection is given by the manager's reconnect loop. */
export interface ConnectionLink {
  /** Aborts when the account is stopped, reconfigured or deleted. */
  signal: AbortSignal;
  /** Hands one received message on; never throws, never blocks receiving. */
  deliver(message: InboundMessage): void;
  /**
   * Hands one received message on and resolves once it is recorded (the durable inbox), so the
   * platform may be acknowledged; rejects when it could not be recorded: do not acknowledge it.
   */
  record?(message: InboundMessage): Promise<void>;
  /** Call when the platform has accepted the connection: the account shows `connected`. */
  connected(): void;
}

/** One HTTP request of a platform to POST /webhooks/{platform}/{accountId}. */
export interface WebhookRequest {
  /** GET for the URL checks some platforms make (WeCom), POST for events. */
  method: 'GET' | 'POST';
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The raw body, as signatures are computed over it. */
  body: Buffer;
}

export interface WebhookReply {
  status: number;
  /** JSON (an object) or text (a string) to answer with. */
  body?: unknown;
  contentType?: string;
}

/** A reply shown at once and edited as the answer streams (Feishu card, WeCom stream, Slack update). */
export interface ReplyStream {
  /** Names the reply for resumeReply (kept with the durable inbox's record of the message). */
  ref?: string;
  /** Shows the answer so far; the caller throttles calls to the adapter's editIntervalMs. */
  update(text: string): Promise<void>;
  /** Shows the final answer (splitting it into more messages where it is too long). */
  finish(text: string): Promise<void>;
}

/** An adapter of a platform; Config is the type of its accounts (see account-schema.ts). */
export interface ChannelAdapter<Config extends AccountConfig = AccountConfig> {
  readonly platform: Platform;
  /** The fields its accounts take, declared once: validation, secrets, views and the form come from it. */
  readonly accountFields: PlatformAccount<Config>;
  readonly capabilities: ChannelCapabilities;
  /** Largest local file the platform accepts, in bytes, per kind. */
  readonly maxUploadBytes: { image: number; file: number };
  /** Least time between two edits of a streamed reply, in ms (the platform's rate limit). */
  readonly editIntervalMs?: number;
  /** How this account receives messages. */
  inboundStyle(account: Config): InboundStyle;
  /**
   * Long connection: connects, receives until the link's signal aborts or the platform drops the
   * connection, then resolves (or throws). The manager reconnects with back-off and jitter.
   */
  connect?(account: ChannelAccount<Config>, link: ConnectionLink): Promise<void>;
  /**
   * Webhook: verifies and answers one request of the platform. A request that fails the platform's
   * signature, token or decryption is answered 401 and delivers nothing.
   */
  handleWebhook?(
    account: ChannelAccount<Config>,
    request: WebhookRequest,
    deliver: (message: InboundMessage) => void,
  ): Promise<WebhookReply>;
  /** Sends text, split as the platform requires. Failures are AppErrors of kind `upstream`. */
  sendText(
    account: ChannelAccount<Config>,
    chatId: string,
    text: string,
    options?: SendTextOptions,
  ): Promise<SendResult>;
  sendImage(account: ChannelAccount<Config>, chatId: string, media: OutboundMedia): Promise<SendResult>;
  sendFile(account: ChannelAccount<Config>, chatId: string, media: OutboundMedia): Promise<SendResult>;
  /**
   * With capabilities.editMessage: starts the reply to `message` (a "thinking" card or stream).
   * Undefined means this account answers with a plain sendText instead (no card configured, say).
   */
  beginReply?(
    account: ChannelAccount<Config>,
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<ReplyStream | undefined>;
  /**
   * Takes up a reply begun by an earlier attempt at the same message (ReplyStream.ref), on this or
   * another instance, so a message taken over after a crash is answered in one reply, not two.
   */
  resumeReply?(
    account: ChannelAccount<Config>,
    message: InboundMessage,
    ref: string,
    signal: AbortSignal,
  ): Promise<ReplyStream | undefined>;
  /** With capabilities.typing: shows typing in the chat until the returned function is called. */
  showTyping?(account: ChannelAccount<Config>, message: InboundMessage, signal: AbortSignal): () => void;
}
