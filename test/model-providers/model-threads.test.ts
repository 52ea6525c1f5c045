import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { workerEntry } from '../../src/core/worker-entry.ts';
import { ModelThreads } from '../../src/model-providers/model-threads.ts';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { collect, failureOf, textOf, userRequest, within } from './stream-helpers.ts';

const KEY = 'sk-threads-SECRET-0a1b2c3d4e';

describe('model calls on worker threads', () => {
  let upstream: FakeUpstream;
  let threads: ModelThreads;

  before(async () => {
    upstream = await startFakeUpstream({ errorMessage: `bad key ${KEY}` });
    threads = new ModelThreads({ workers: 2 });
  });
  after(async () => {
    await threads.close();
    await upstream.close();
  });

  const provider = (extra: { maxRetries?: number } = {}) =>
    threads.provider({
      id: 'fake',
      baseUrl: upstream.url,
      apiKey: KEY,
      model: 'm',
      retryBaseMs: 1,
      ...extra,
    });

  it('streams the same events as an in-process call, and the worker sends the key upstream', async () => {
    const events = await collect(provider().stream(userRequest('hi')));
    assert.equal(textOf(events), 'Hello from the fake upstream.');
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
    assert.ok(events.some((event) => event.type === 'usage'));
    assert.equal(upstream.lastHeaders?.authorization, `Bearer ${KEY}`);
  });

  it('joins pieces of text that arrive together into one event; pieces that arrive apart stay apart', async () => {
    const deltas = (events: Awaited<ReturnType<typeof collect>>) =>
      events.filter((event) => event.type === 'text-delta').length;
    // The fake writes its whole reply (a frame per word) at once: one piece of text crosses.
    const together = await collect(provider().stream(userRequest('hi')));
    assert.equal(textOf(together), 'Hello from the fake upstream.');
    assert.equal(deltas(together), 1);
    // A model generating: frames 50 ms apart, the words cross one by one (a busy machine holding
    // the worker back may still join two of them).
    const slow = await startFakeUpstream({ frameGapMs: 50 });
    try {
      const apart = await collect(
        threads
          .provider({ id: 'slow', baseUrl: slow.url, apiKey: KEY, model: 'm' })
          .stream(userRequest('hi')),
      );
      assert.equal(textOf(apart), 'Hello from the fake upstream.');
      assert.ok(deltas(apart) >= 3, `${deltas(apart)} pieces of 5`);
    } finally {
      await slow.close();
    }
  });

  it('runs many calls at once', async () => {
    const one = provider();
    const answers = await Promise.all(
      Array.from({ length: 40 }, async () => textOf(await collect(one.stream(userRequest('hi'))))),
    );
    assert.deepEqual(new Set(answers), new Set(['Hello from the fake upstream.']));
  });

  it('brings an upstream failure back as the same AppError, key scrubbed', async () => {
    upstream.failNext('error500', 1);
    const { error } = await failureOf(provider({ maxRetries: 0 }), userRequest('hi'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.match(error.message, /model provider "fake" failed: 500/);
    assert.doesNotMatch(error.message, new RegExp(KEY));
  });

  it('ends the caller at once on abort and cancels the upstream request', async () => {
    upstream.setMode('hang');
    try {
      const seen = upstream.clientAborts;
      const controller = new AbortController();
      const running = failureOf(provider(), userRequest('hi', { signal: controller.signal }));
      // Abort once the request has reached the upstream.
      const arrived = upstream.requestCount;
      while (upstream.requestCount === arrived) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(new Error('client went away'));
      const { error } = await within(running, 1000);
      assert.equal((error as Error).message, 'client went away');
      await within(upstream.waitForClientAbort(seen), 2000);
    } finally {
      upstream.setMode('ok');
    }
  });

  it('cancels the upstream request when the caller stops reading early', async () => {
    // An upstream that streams one text chunk and then keeps the response open.
    let closed: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const slow = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
      response.write(
        `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { content: 'first' } }] })}\n\n`,
      );
      response.on('close', closed);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = slow.address() as AddressInfo;
      const slowProvider = threads.provider({
        id: 'slow',
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'm',
      });
      for await (const event of slowProvider.stream(userRequest('hi'))) {
        assert.deepEqual(event, { type: 'text-delta', text: 'first' });
        break;
      }
      await within(gone, 2000);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('delivers the events streamed before an error, then the error', async () => {
    const broken = createServer((request, response) => {
      request.resume();
      const chunk = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // One write: the text and the error reach the worker in the same read.
      response.end(
        `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { content: 'partial' } }] })}\n\n` +
          `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`,
      );
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = broken.address() as AddressInfo;
      const failing = threads.provider({ id: 'broken', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' });
      const { error, events } = await failureOf(failing, userRequest('hi'));
      assert.deepEqual(events, [{ type: 'text-delta', text: 'partial' }]);
      assert.ok(error instanceof AppError);
      assert.match(error.message, /error in stream: overloaded/);
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });

  it('fails the calls of a worker that dies with a 502, and starts a new worker for the next call', async () => {
    const dying = new ModelThreads({
      workers: 1,
      entry: workerEntry(new URL('./fixtures/dying-model-worker.ts', import.meta.url)),
    });
    try {
      const doomed = dying.provider({ id: 'fake', baseUrl: upstream.url, model: 'm' });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const { error } = await within(failureOf(doomed, userRequest('hi')), 10_000);
        assert.ok(error instanceof AppError);
        assert.equal(error.kind, 'upstream');
        assert.match(error.message, /the model worker stopped/);
      }
    } finally {
      await dying.close();
    }
  });

  it('fails calls in flight when closed', async () => {
    const closing = new ModelThreads({ workers: 1 });
    upstream.setMode('hang');
    try {
      const arrived = upstream.requestCount;
      const running = failureOf(
        closing.provider({ id: 'fake', baseUrl: upstream.url, model: 'm' }),
        userRequest('hi'),
      );
      while (upstream.requestCount === arrived) await new Promise((resolve) => setTimeout(resolve, 5));
      await closing.close();
      const { error } = await within(running, 1000);
      assert.ok(error instanceof AppError);
      assert.equal(error.kind, 'unavailable');
      assert.match(error.message, /shutting down/);
      const after = await failureOf(
        closing.provider({ id: 'fake', baseUrl: upstream.url, model: 'm' }),
        userRequest('hi'),
      );
      assert.ok(after.error instanceof AppError && after.error.kind === 'unavailable', 'no call after close');
    } finally {
      upstream.setMode('ok');
    }
  });
});
