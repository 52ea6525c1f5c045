// Splits an answer into Discord messages of at most 2,000 characters. Breaks fall at line ends, and
// outside ``` code blocks when the block can move whole into the next message; a block too long for
// one message is closed at the break and reopened (with its language) in the next. Nothing of the
// text is dropped: the pieces, without the added fences, join back into the answer.

/** Discord's limit on a message's content. */
export const DISCORD_TEXT_LIMIT = 2000;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fence a line opens or closes (its marker and its whole line), if it is one. */
function fenceOf(line: string): { marker: string; line: string } | undefined {
  const match = FENCE.exec(line.replace(/\r?\n$/, ''));
  return match ? { marker: match[1] as string, line: match[0] } : undefined;
}

/** A cut of `body` at or before `max`, preferring a space in the second half; never inside a surrogate pair. */
function hardCut(body: string, max: number): number {
  let cut = body.lastIndexOf(' ', max - 1) + 1;
  if (cut < max / 2) {
    cut = max;
    const code = body.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  }
  return Math.max(cut, 1);
}

interface Scan {
  /** The last line end at or before the limit where no code block is open. */
  outside: number;
  /** The last line end at or before the limit, and the fence open there. */
  last: number;
  openAtLast: { marker: string; line: string } | undefined;
}

/** Scans whole lines of `body` that end at or before `max`, tracking open code blocks. */
function scan(body: string, max: number, reserve: number): Scan {
  let open: { marker: string; line: string } | undefined;
  const result: Scan = { outside: 0, last: 0, openAtLast: undefined };
  let start = 0;
  while (start < body.length) {
    const newline = body.indexOf('\n', start);
    const end = newline === -1 ? body.length : newline + 1;
    const fence = fenceOf(body.slice(start, end));
    if (fence) {
      if (!open) open = fence;
      else if (fence.marker.startsWith(open.marker) && fence.line.trim() === fence.marker) open = undefined;
    }
    const room = open ? max - reserve : max;
    if (end > room) break;
    if (!open) result.outside = end;
    result.last = end;
    result.openAtLast = open;
    start = end;
  }
  return result;
}

export function splitMessage(text: string, max = DISCORD_TEXT_LIMIT): string[] {
  const pieces: string[] = [];
  let reopen = '';
  let rest = text;
  while (reopen.length + rest.length > max) {
    const body = reopen + rest;
    // Room for "\n" + the closing marker when a block has to be cut.
    const reserve = 16;
    const found = scan(body, max, reserve);
    let cut: number;
    let open: { marker: string; line: string } | undefined;
    // Before a block that fits the next message whole; inside one that fits no message anyway.
    const blockFits = found.openAtLast === undefined || blockEnd(body, found.outside) - found.outside <= max;
    if (found.outside > reopen.length && blockFits) cut = found.outside;
    else if (found.last > reopen.length) {
      cut = found.last;
      open = found.openAtLast;
    } else {
      // One line longer than a message: cut inside it (closing a block it may be in).
      open = fenceStateAt(body, max - reserve);
      cut = hardCut(body, open ? max - reserve : max);
    }
    let piece = body.slice(0, cut);
    if (open) piece += `${piece.endsWith('\n') ? '' : '\n'}${open.marker}`;
    pieces.push(piece);
    rest = body.slice(cut);
    // A block's opening line is repeated (with its language) unless it is unusually long.
    reopen = open ? `${open.line.length <= 80 ? open.line : open.marker}\n` : '';
  }
  const last = reopen + rest;
  if (last.trim() !== '' || pieces.length === 0) pieces.push(last);
  // Discord refuses an empty message; a piece of only whitespace carries nothing visible.
  return pieces.filter((piece, index) => piece.trim() !== '' || (index === 0 && pieces.length === 1));
}

/** The code block open at `position` of `body` (counting only lines that end before it). */
function fenceStateAt(body: string, position: number): { marker: string; line: string } | undefined {
  let open: { marker: string; line: string } | undefined;
  let start = 0;
  while (start < position) {
    const newline = body.indexOf('\n', start);
    if (newline === -1 || newline + 1 > position) break;
    const fence = fenceOf(body.slice(start, newline + 1));
    if (fence) {
      if (!open) open = fence;
      else if (fence.marker.startsWith(open.marker) && fence.line.trim() === fence.marker) open = undefined;
    }
    start = newline + 1;
  }
  return open;
}

/** Where the code block that opens on the line at `start` ends (after its closing line, or the text's end). */
function blockEnd(body: string, start: number): number {
  const newline = body.indexOf('\n', start);
  if (newline === -1) return body.length;
  const open = fenceOf(body.slice(start, newline + 1));
  let position = newline + 1;
  while (open && position < body.length) {
    const next = body.indexOf('\n', position);
    const end = next === -1 ? body.length : next + 1;
    const fence = fenceOf(body.slice(position, end));
    if (fence && fence.marker.startsWith(open.marker) && fence.line.trim() === fence.marker) return end;
    position = end;
  }
  return body.length;
}
