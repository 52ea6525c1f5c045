import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { readCapped } from '../../src/core/read-capped.ts';

function streamed(parts: string[], headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = new Response(body, { headers });
  Object.defineProperty(response, 'wasCancelled', { get: () => cancelled });
  return response;
}

const isTooLarge = (error: unknown): boolean =>
  error instanceof AppError && error.kind === 'upstream' && /larger than 10 bytes/.test(error.message);

describe('readCapped', () => {
  it('reads a body within the limit, multi-byte characters across chunks included', async () => {
    assert.equal(await readCapped(streamed(['hé', 'llo']), 10), 'héllo');
    assert.equal(await readCapped(new Response(null), 10), '');
  });

  it('refuses a declared length over the limit without reading', async () => {
    const response = streamed(['x'], { 'content-length': '11' });
    await assert.rejects(readCapped(response, 10), isTooLarge);
    assert.equal((response as Response & { wasCancelled: boolean }).wasCancelled, true);
  });

  it('stops reading once a body without a length passes the limit', async () => {
    const response = streamed(['12345', '67890', 'X', 'never read']);
    await assert.rejects(readCapped(response, 10), isTooLarge);
    assert.equal((response as Response & { wasCancelled: boolean }).wasCancelled, true);
  });
});
