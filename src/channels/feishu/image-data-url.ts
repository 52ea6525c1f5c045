// An image a user sent, as the model receives it: a data: URL. Feishu does not always name the
// type of a resource it serves (application/octet-stream), so it is read from the first bytes.

const SIGNATURES: Array<[RegExp, string]> = [
  [/^\x89PNG/, 'image/png'],
  [/^\xff\xd8\xff/, 'image/jpeg'],
  [/^GIF8/, 'image/gif'],
  [/^RIFF....WEBP/s, 'image/webp'],
  [/^BM/, 'image/bmp'],
];

export function imageDataUrl(bytes: Buffer, declaredType: string): string {
  const declared = declaredType.split(';')[0]?.trim().toLowerCase() ?? '';
  const head = bytes.subarray(0, 12).toString('latin1');
  const type = /^image\/[a-z0-9.+-]+$/.test(declared)
    ? declared
    : (SIGNATURES.find(([pattern]) => pattern.test(head))?.[1] ?? 'image/png');
  return `data:${type};base64,${bytes.toString('base64')}`;
}
