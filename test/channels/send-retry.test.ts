// Outbound sends retried on transient platform failures only, bounded, with Retry-After honoured.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlatformError } from '../../src/channels/platform-http.ts';
import { isTransientSendError, withSendRetry } from '../../src/channels/send-retry.ts';

const failing = (errors: Error[]) => {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    send: async (): Promise<string> => {
      const error = errors[calls];
      calls += 1;
      if (error) throw error;
      return 'sent';
    },
  };
};

describe('send retry', () => {
  it('429, 5xx and a broken connection are transient; a 4xx, a plain error are not', () => {
    assert.equal(isTransientSendError(new PlatformError('x', { status: 429 })), true);
    assert.equal(isTransientSendError(new PlatformError('x', { status: 503 })), true);
    assert.equal(isTransientSendError(new PlatformError('x (ECONNRESET)', { unreachable: true })), true);
    assert.equal(isTransientSendError(new PlatformError('x', { status: 400 })), false);
    assert.equal(isTransientSendError(new PlatformError('x', { status: 403 })), false);
    assert.equal(isTransientSendError(new Error('x')), false);
  });

  it('retries a connection reset and a 500 with growing delays, then succeeds', async () => {
    const delays: number[] = [];
    const fake = failing([
      new PlatformError('reset', { unreachable: true }),
      new PlatformError('boom', { status: 500 }),
    ]);
    const sent = await withSendRetry(fake.send, { baseDelayMs: 5, onRetry: (_n, ms) => delays.push(ms) });
    assert.equal(sent, 'sent');
    assert.equal(fake.calls, 3);
    assert.deepEqual(delays, [5, 10]);
  });

  it("waits a 429's Retry-After; a Retry-After longer than the cap fails at once", async () => {
    const delays: number[] = [];
    const fake = failing([new PlatformError('slow down', { status: 429, retryAfterMs: 20 })]);
    assert.equal(await withSendRetry(fake.send, { onRetry: (_n, ms) => delays.push(ms) }), 'sent');
    assert.deepEqual(delays, [20]);
    const long = failing([new PlatformError('later', { status: 429, retryAfterMs: 60_000 })]);
    await assert.rejects(withSendRetry(long.send, { maxDelayMs: 1_000 }), /later/);
    assert.equal(long.calls, 1);
  });

  it('gives up after the attempts and throws the last failure; a 400 is not retried', async () => {
    const always = failing(Array.from({ length: 10 }, () => new PlatformError('down', { status: 502 })));
    await assert.rejects(withSendRetry(always.send, { attempts: 3, baseDelayMs: 1 }), /down/);
    assert.equal(always.calls, 3);
    const refused = failing([new PlatformError('bad request', { status: 400 })]);
    await assert.rejects(withSendRetry(refused.send, { baseDelayMs: 1 }), /bad request/);
    assert.equal(refused.calls, 1);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const fake = failing([new PlatformError('boom', { status: 500 })]);
    const sending = withSendRetry(fake.send, {
      baseDelayMs: 60_000,
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('stopped')),
    });
    await assert.rejects(sending, /stopped/);
    assert.equal(fake.calls, 1);
  });
});
