import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sseJsonChunks, StreamedError } from '../../src/model-providers/sse-decoder.ts';

const encoder = new TextEncoder();

/** A body that delivers each part as one read. */
function bytes(...parts: string[]): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      for (const part of parts) yield encoder.encode(part);
    })(),
  );
}

function streamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  return ReadableStream.from(source) as ReadableStream<Uint8Array>;
}

async function chunksOfBody(body: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of sseJsonChunks(body)) out.push(chunk);
  return out;
}

const chunksOf = (...parts: string[]): Promise<unknown[]> => chunksOfBody(bytes(...parts));

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
      for await (const chunk of sseJsonChunks(streamOf(two()))) out.push(chunk);
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

  it('reports an error without a message as its JSON', async () => {
    await assert.rejects(
      chunksOf('data: {"error":{"code":503,"type":"overloaded"}}\n\n'),
      (error: unknown) =>
        error instanceof StreamedError && error.message === '{"code":503,"type":"overloaded"}',
    );
  });

  it('splits a read holding thousands of events', async () => {
    const events = Array.from({ length: 5000 }, (_, n) => `data: {"n":${n}}\n\n`).join('');
    const chunks = (await chunksOf(events)) as Array<{ n: number }>;
    assert.equal(chunks.length, 5000);
    assert.equal(chunks[4999]?.n, 4999);
  });

  it('reads the body to its end after [DONE], so the connection can be reused', async () => {
    let ended = false;
    async function* body(): AsyncGenerator<Uint8Array> {
      yield encoder.encode('data: {"a":1}\n\ndata: [DONE]\n\n');
      await new Promise((resolve) => setTimeout(resolve, 20));
      ended = true;
    }
    assert.deepEqual(await chunksOfBody(streamOf(body())), [{ a: 1 }]);
    assert.equal(ended, true);
  });

  it('a second after [DONE] stops waiting for the end of the body and cancels it', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: {"a":1}\n\ndata: [DONE]\n\n'));
        // ...and the body never ends.
      },
      cancel() {
        cancelled = true;
      },
    });
    const started = Date.now();
    assert.deepEqual(await chunksOfBody(body), [{ a: 1 }]);
    const waited = Date.now() - started;
    assert.ok(waited >= 900 && waited < 3000, `waited ${waited} ms`);
    assert.equal(cancelled, true);
  });

  it('fails with a SyntaxError on data that is not JSON', async () => {
    await assert.rejects(chunksOf('data: {"a":\n\n'), SyntaxError);
  });
});
