// The platform-neutral shapes of the channel core. Each messaging platform implements one
// ChannelAdapter; routing, policies, sessions and agent turns are shared by all of them.
import type { AccountConfig, Platform } from '../config/schema.ts';

/** One message received from a chat platform, already reduced to what routing needs. */
export interface InboundMessage {
  platform: Platform;
  accountId: string;
  /** Where a reply goes: the DM or the group. */
  chatId: string;
  chatType: 'dm' | 'group';
  senderId: string;
  text: string;
  messageId?: string;
}

/** The account an adapter works for, as configured when the adapter was started or called. */
export interface ChannelAccount {
  platform: Platform;
  id: string;
  config: AccountConfig;
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
  signal?: AbortSignal | undefined;
}

export interface ChannelLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface ChannelAdapter {
  readonly platform: Platform;
  /** Largest local file the platform accepts, in bytes, per kind. */
  readonly maxUploadBytes: { image: number; file: number };
  /**
   * Receives messages for one account until `signal` aborts, handing each to `deliver` (which must
   * not throw and does not block receiving). Resolves once receiving has stopped; errors of the
   * platform are retried with back-off inside, never thrown.
   */
  start(
    account: ChannelAccount,
    deliver: (message: InboundMessage) => void,
    signal: AbortSignal,
  ): Promise<void>;
  /** Sends text, split as the platform requires. Failures are AppErrors of kind `upstream`. */
  sendText(
    account: ChannelAccount,
    chatId: string,
    text: string,
    options?: SendTextOptions,
  ): Promise<SendResult>;
  sendImage(account: ChannelAccount, chatId: string, media: OutboundMedia): Promise<SendResult>;
  sendFile(account: ChannelAccount, chatId: string, media: OutboundMedia): Promise<SendResult>;
}

/**
 * Splits text into pieces of at most `max` UTF-16 code units, preferring a break at a newline, then
 * at a space, in the second half of a piece; never splits a surrogate pair.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) {
      cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    }
    const piece = rest.slice(0, cut);
    pieces.push(piece);
    rest = rest.slice(cut);
    // The separator we broke at starts the next piece; drop it when it is only whitespace.
    if (rest.startsWith('\n') || rest.startsWith(' ')) rest = rest.slice(1);
  }
  if (rest.length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}
