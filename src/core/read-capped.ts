// Reading a fetch response body with a size limit: a server we call (a rule chain's endpoint, a chat
// platform or its proxy) must not be able to make us buffer an unbounded answer.
import { AppError } from './errors.ts';

/**
 * The body as bytes; past `limit` bytes the read stops (nothing more is buffered) and fails with
 * `tooLarge()` (default: a 502 "the response is larger than N bytes").
 */
export async function readBytesCapped(
  response: Response,
  limit: number,
  tooLarge: () => Error = () => new AppError('upstream', `the response is larger than ${limit} bytes`),
): Promise<Buffer> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
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
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, read as readBytesCapped does. */
export async function readCapped(response: Response, limit: number): Promise<string> {
  return (await readBytesCapped(response, limit)).toString('utf8');
}
