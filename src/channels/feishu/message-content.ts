// What the bot sends, as Feishu's message content: text messages, and the interactive card a
// streamed reply lives in (one markdown element, a shared card so it can be patched). Long texts
// are split so each request stays under Feishu's body limits (150 KB for text, 30 KB for cards).
import { splitText } from '../split-text.ts';
import type { OutgoingMessage } from './feishu-api.ts';

/** Characters per text message before the byte check (a CJK character is 3 bytes, escapes more). */
const TEXT_CHARS = 20_000;
/** Characters per card before the byte check. */
const CARD_CHARS = 6_000;
const TEXT_BODY_BYTES = 150 * 1024;
const CARD_BODY_BYTES = 30 * 1024;
/** Room for the other fields of the request body (receive_id, msg_type, uuid). */
const BODY_OVERHEAD_BYTES = 1024;

/**
 * Keeps a text from mentioning anyone: Feishu turns `<at user_id="all">` (text) and `<at id=all>`
 * (card markdown) into real mentions, and an agent's answer must not ping a whole group.
 */
export function neutralizeMentions(text: string): string {
  return text.replace(/<(\/?)at\b/gi, '<$1\u200bat');
}

export function textMessage(text: string): OutgoingMessage {
  return { msgType: 'text', content: JSON.stringify({ text: neutralizeMentions(text) }) };
}

/** A shared card (update_multi) showing `markdown`: the streamed reply and its continuations. */
export function cardMessage(markdown: string): OutgoingMessage {
  const card = {
    config: { wide_screen_mode: true, update_multi: true },
    elements: [{ tag: 'markdown', content: neutralizeMentions(markdown) }],
  };
  return { msgType: 'interactive', content: JSON.stringify(card) };
}

/** Bytes of a message's content once it is a field of the JSON request body. */
function bodyBytes(message: OutgoingMessage): number {
  return Buffer.byteLength(JSON.stringify(message.content)) + BODY_OVERHEAD_BYTES;
}

/** Splits at `maxChars`, and splits again any piece whose message is still too large. */
function splitToFit(text: string, maxChars: number, fits: (piece: string) => boolean): string[] {
  const pieces: string[] = [];
  for (const piece of splitText(text, maxChars)) {
    if (fits(piece) || maxChars <= 64) pieces.push(piece);
    else pieces.push(...splitToFit(piece, Math.floor(maxChars / 2), fits));
  }
  return pieces;
}

/** A long text as text messages that each fit. */
export function textPieces(text: string): string[] {
  return splitToFit(text, TEXT_CHARS, (piece) => bodyBytes(textMessage(piece)) <= TEXT_BODY_BYTES);
}

/** A long answer as cards that each fit: the streamed card shows the first, the rest follow. */
export function cardPieces(text: string): string[] {
  return splitToFit(text, CARD_CHARS, (piece) => bodyBytes(cardMessage(piece)) <= CARD_BODY_BYTES);
}
