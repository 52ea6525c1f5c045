import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sseJsonChunks, StreamedError } from '../../src/model-providers/sse-decoder.ts';

const encoder = new TextEncoder();

async function* bytes(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield encoder.encode(part);
}

async function chunksOf(...parts: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of sseJsonChunks(bytes(...parts))) out.push(chunk);
  return out;
}

describe('event-stream decoder', () => {
  it('yields each data event as parsed JSON and stops at [DONE]', async () => {
    const chunks = await chunksOf('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\ndata: {"a":3}\n\n');
    assert.deepEqual(chunks, [{ a: 1 }, { a: 2 }]);
  });

  it('reassembles events split anywhere across reads, multi-byte characters included', async () => {
    const whole = 'data: {"text":"héllo 世界"}\r\n\r\ndata:{"n":2}\n\n';
    const raw = encoder.encode(whole);
    // Every split point, including inside a CRLF and inside a multi-byte character.
    for (let cut = 1; cut < raw.length; cut += 1) {
      const out: unknown[] = [];
      async function* two(): AsyncGenerator<Uint8Array> {
        yield raw.slice(0, cut);
        yield raw.slice(cut);
      }
      for await (const chunk of sseJsonChunks(two())) out.push(chunk);
      assert.deepEqual(out, [{ text: 'héllo 世界' }, { n: 2 }], `split at byte ${cut}`);
    }
  });

  it('accepts CR and CRLF line ends, joins multi-line data and skips comments and other fields', async () => {
    const chunks = await chunksOf(
      ': keep-alive\r\rid: 7\revent: chunk\rdata: {"a":\rdata: 1}\r\r',
      'retry: 100\ndata: {"b":2}\n\n',
    );
    assert.deepEqual(chunks, [{ a: 1 }, { b: 2 }]);
  });

  it('delivers a last event that has no closing blank line', async () => {
    assert.deepEqual(await chunksOf('data: {"a":1}\n\ndata: {"a":2}'), [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(await chunksOf('data: {"a":1}\r'), [{ a: 1 }]);
  });

  it('ends with the error of a chunk that reports one', async () => {
    const stream = sseJsonChunks(bytes('data: {"a":1}\n\n', 'data: {"error":{"message":"overloaded"}}\n\n'));
    const seen: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) seen.push(chunk);
      })(),
      (error: unknown) => error instanceof StreamedError && error.message === 'overloaded',
    );
    assert.deepEqual(seen, [{ a: 1 }]);
  });

  it('fails with a SyntaxError on data that is not JSON', async () => {
    await assert.rejects(chunksOf('data: {"a":\n\n'), SyntaxError);
  });
});
