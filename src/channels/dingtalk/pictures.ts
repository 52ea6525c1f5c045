// Pictures users send, fetched for the model as data: URLs: POST /v1.0/robot/messageFiles/download
// turns a message's downloadCode into a short-lived download URL, which is read with a size cap.
import type { InboundImage, ChannelAccount } from '../types.ts';
import { originsOf, type DingTalkOpenApi } from './open-api.ts';
import { PlatformError, platformFetch } from '../platform-http.ts';
import type { DingTalkAccount } from './account.ts';

export interface PictureOptions {
  /** Largest picture read, in bytes; a larger one is skipped. */
  maxBytes: number;
  /** Most pictures taken from one message. */
  maxCount: number;
  timeoutMs: number;
}

const SIGNATURES: Array<[string, number[]]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['image/webp', [0x52, 0x49, 0x46, 0x46]],
  ['image/bmp', [0x42, 0x4d]],
];

/** The picture's type from its first bytes (a download URL's content type is often generic). */
export function imageType(bytes: Uint8Array, declared: string | null): string | undefined {
  const type = declared?.split(';')[0]?.trim().toLowerCase();
  if (type?.startsWith('image/')) return type;
  return SIGNATURES.find(([, magic]) => magic.every((byte, index) => bytes[index] === byte))?.[0];
}

/** Downloads one picture by its downloadCode and returns it as a data: URL. */
export async function downloadPicture(
  api: DingTalkOpenApi,
  account: ChannelAccount<DingTalkAccount>,
  downloadCode: string,
  robotCode: string,
  options: PictureOptions,
  signal?: AbortSignal,
): Promise<InboundImage> {
  const answer = await api.call(
    account,
    'dingtalk robot/messageFiles/download',
    'POST',
    '/v1.0/robot/messageFiles/download',
    { downloadCode, robotCode },
    signal,
  );
  let url: URL;
  try {
    url = new URL(String(answer['downloadUrl']));
  } catch {
    throw new PlatformError('dingtalk robot/messageFiles/download: no downloadUrl');
  }
  // The platform's storage is https; plain http only from the account's own API origin (a proxy).
  if (url.protocol !== 'https:' && url.origin !== new URL(originsOf(account.config).api).origin) {
    throw new PlatformError('dingtalk robot/messageFiles/download: the downloadUrl is not https');
  }
  const response = await platformFetch({
    what: 'dingtalk picture download',
    url,
    signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
  });
  if (!response.ok) throw new PlatformError(`dingtalk picture download failed (status ${response.status})`);
  const bytes = response.body;
  const type = imageType(bytes, response.headers.get('content-type'));
  if (!type) throw new PlatformError('dingtalk picture download: the file is not an image');
  return { url: `data:${type};base64,${Buffer.from(bytes).toString('base64')}` };
}
