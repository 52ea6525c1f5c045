// pipeSse, the one SSE writer: frames as the encoder says, a failure as the wire's error frame, the
// stream's signal aborted when the client leaves, and no item read while the socket is full.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { AppError } from '../../src/core/errors.ts';
import { dataFrame, pipeSse, publicMessage, type SseEncoder } from '../../src/http/sse.ts';

type Stream = (reply: FastifyReply) => Promise<void>;

const jsonEncoder: SseEncoder<unknown> = {
  frame: dataFrame,
  error: (error) => `event: error\ndata: ${JSON.stringify({ error: publicMessage(error) })}\n\n`,
};

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('pipeSse', () => {
  let app: FastifyInstance;
  let base: string;
  const streams = new Map<string, Stream>();

  before(async () => {
    app = Fastify({ logger: false });
    app.get<{ Params: { name: string } }>('/:name', async (request, reply) => {
      await (streams.get(request.params.name) as Stream)(reply);
      return reply;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(() => app.close());

  it('writes each item as the encoder frames it, then ends the response', async () => {
    streams.set('items', (reply) =>
      pipeSse(
        reply,
        async function* () {
          yield { n: 1 };
          yield '[DONE]';
        },
        jsonEncoder,
      ),
    );
    const response = await fetch(`${base}/items`);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(await response.text(), 'data: {"n":1}\n\ndata: [DONE]\n\n');
  });

  it("a failure ends the stream with the wire's error frame: an AppError's message, else 'internal error'", async () => {
    const failing = (error: Error) => (reply: FastifyReply) =>
      pipeSse(
        reply,
        async function* () {
          yield { n: 1 };
          throw error;
        },
        jsonEncoder,
      );
    streams.set('app-error', failing(new AppError('upstream', 'the model failed')));
    streams.set('fault', failing(new TypeError('secret detail')));
    assert.equal(
      await (await fetch(`${base}/app-error`)).text(),
      'data: {"n":1}\n\nevent: error\ndata: {"error":"the model failed"}\n\n',
    );
    assert.equal(
      await (await fetch(`${base}/fault`)).text(),
      'data: {"n":1}\n\nevent: error\ndata: {"error":"internal error"}\n\n',
    );
  });

  it('a client that leaves aborts the stream, which is still read to its end', async () => {
    let aborted: unknown;
    let finished = false;
    streams.set('leave', (reply) =>
      pipeSse(
        reply,
        async function* (signal) {
          yield { n: 1 };
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          aborted = signal.reason;
          yield { n: 2 };
          finished = true;
        },
        jsonEncoder,
      ),
    );
    const controller = new AbortController();
    const response = await fetch(`${base}/leave`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /"n":1/);
    controller.abort();
    await until(() => finished);
    assert.ok(aborted instanceof AppError && aborted.message === 'client disconnected');
  });

  it('waits for drain: no item is read while the socket is full', async () => {
    const big = 'x'.repeat(128 * 1024);
    const count = 64;
    let server: FastifyReply['raw'] | undefined;
    let drains = 0;
    let readWhileFull = 0;
    streams.set('slow', (reply) => {
      server = reply.raw;
      reply.raw.on('drain', () => (drains += 1));
      return pipeSse(
        reply,
        async function* () {
          for (let index = 0; index < count; index += 1) {
            if (reply.raw.writableNeedDrain) readWhileFull += 1;
            yield index;
          }
        },
        { frame: (index: number) => `data: ${index} ${big}\n\n` },
      );
    });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(`${base}/slow`, resolve);
      outgoing.on('error', reject);
      outgoing.end();
    });
    response.pause();
    // The client reads nothing until the server's socket is full (or, were there no backpressure,
    // the server wrote everything), then everything.
    await until(() => server !== undefined && (server.writableNeedDrain || server.writableEnded));
    let received = '';
    response.setEncoding('utf8');
    response.on('data', (text: string) => (received += text));
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    assert.equal(received.split('\n\n').filter(Boolean).length, count);
    assert.ok(drains >= 1, 'the socket filled up at least once');
    assert.equal(readWhileFull, 0);
  });
});
