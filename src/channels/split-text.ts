// Splitting a long answer into the pieces a platform accepts in one message.
import type { SendResult } from './types.ts';

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

/** Sends the pieces of an answer one after another; the result names the first message sent. */
export async function sendPieces(
  pieces: readonly string[],
  send: (piece: string, index: number) => Promise<string>,
): Promise<SendResult> {
  let first: string | undefined;
  for (const [index, piece] of pieces.entries()) {
    const id = await send(piece, index);
    first ??= id;
  }
  return { messageId: first ?? '' };
}
