// Bytes in and out of WeCom: images as data: URLs for the model, and text split by
// UTF-8 bytes (WeCom counts limits in bytes, and one Chinese character is three of them).

const SIGNATURES: Array<[string, (bytes: Buffer) => boolean]> = [
  ['image/png', (b) => b.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))],
  ['image/jpeg', (b) => b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  [
    'image/webp',
    (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  ],
  ['image/bmp', (b) => b.subarray(0, 2).toString('latin1') === 'BM'],
];

/** The image as a data: URL, its type read from its first bytes; undefined when it is no image we know. */
export function imageDataUrl(bytes: Buffer): string | undefined {
  const type = SIGNATURES.find(([, matches]) => matches(bytes))?.[0];
  return type ? `data:${type};base64,${bytes.toString('base64')}` : undefined;
}

/** How many code units of `text` fit in `maxBytes` UTF-8 bytes (whole code points only, at least one). */
function fitting(text: string, maxBytes: number): number {
  let bytes = 0;
  let units = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    units += char.length;
  }
  return units > 0 ? units : (text.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
}

/**
 * Splits text into pieces of at most `maxBytes` UTF-8 bytes, preferring a break at a newline, then at
 * a space, in the second half of a piece (as splitText does with code units); never splits a code point.
 */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (Buffer.byteLength(rest) > maxBytes) {
    const end = fitting(rest, maxBytes);
    let cut = rest.lastIndexOf('\n', end);
    if (cut < end / 2) cut = rest.lastIndexOf(' ', end);
    if (cut < end / 2 || cut > end) cut = end;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
    // The separator broken at starts the next piece; it is dropped when it is only whitespace.
    if (rest.startsWith('\n') || rest.startsWith(' ')) rest = rest.slice(1);
  }
  if (rest.length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}
