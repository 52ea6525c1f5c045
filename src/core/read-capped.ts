// Reading a fetch response body with a size limit: a server we call (a rule chain's endpoint, a chat
// platform or its proxy) must not be able to make us buffer an unbounded answer.
import { AppError } from './errors.ts';

/** The body as UTF-8 text; past `limit` bytes the read stops and fails with a 502 `too large`. */
export async function readCapped(response: Response, limit: number): Promise<string> {
  const tooLarge = (): AppError => new AppError('upstream', `the response is larger than ${limit} bytes`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
