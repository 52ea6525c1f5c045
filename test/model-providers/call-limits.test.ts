// The time limits of one model call against the fault model: first byte, idle stream, Retry-After,
// retries of every fault before output, and a partial answer that fails once text was streamed.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { createFailoverProvider } from '../../src/model-providers/failover.ts';
import { createOpenAICompatibleProvider } from '../../src/model-providers/openai-compatible.ts';
import type { OpenAICompatibleOptions } from '../../src/model-providers/openai-compatible.ts';
import { startFaultModel, type FaultModel } from '../fakes/fault-model.ts';
import { collect, failureOf, textOf, userRequest } from './stream-helpers.ts';

describe('model call limits', () => {
  let model: FaultModel;
  before(async () => {
    model = await startFaultModel({ retryAfterSeconds: 1 });
    // The first call of a process loads the SDK and warms its code paths: not what is measured here.
    await collect(provider({ firstByteTimeoutMs: 30_000, timeoutMs: 30_000 }).stream(userRequest('warm-up')));
  });
  after(async () => {
    await model.close();
  });
  beforeEach(() => model.reset());

  const provider = (options: Partial<OpenAICompatibleOptions> = {}) =>
    createOpenAICompatibleProvider({
      id: 'faulty',
      baseUrl: model.url,
      model: 'fault-model',
      retryBaseMs: 1,
      firstByteTimeoutMs: 300,
      idleTimeoutMs: 300,
      timeoutMs: 5_000,
      ...options,
    });

  it('every fault before output is retried, and the call then answers', async () => {
    model.script('error500', 'error429', 'malformed', 'no-headers');
    const started = Date.now();
    const events = await collect(
      provider({ maxRetries: 4, firstByteTimeoutMs: 500 }).stream(userRequest('one')),
    );
    assert.equal(textOf(events), 'Answer to: one');
    assert.equal(events.filter((event) => event.type === 'retry').length, 4);
    assert.equal(model.calls, 5);
    assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
  });

  it('a response that never starts fails after the first-byte limit of each attempt', async () => {
    model.script('no-headers', 'no-headers');
    const started = Date.now();
    const { error } = await failureOf(provider({ maxRetries: 1 }), userRequest('two'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.match(error.message, /no response within 300 ms/);
    const took = Date.now() - started;
    assert.ok(took >= 550 && took < 2_500, `took ${took} ms`);
  });

  it('a stream that stops after text fails at the idle limit, keeping the text, without a retry', async () => {
    model.script('stall');
    const started = Date.now();
    const { error, events } = await failureOf(provider(), userRequest('three'));
    assert.equal(textOf(events), 'Partial answer ');
    assert.ok(error instanceof AppError);
    assert.match(error.message, /the stream stopped sending for 300 ms/);
    assert.equal(model.calls, 1);
    assert.ok(Date.now() - started < 2_000);
  });

  it('a disconnect after text fails at once, keeping the text', async () => {
    model.script('disconnect');
    const { error, events } = await failureOf(provider(), userRequest('four'));
    assert.equal(textOf(events), 'Partial answer ');
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.equal(model.calls, 1);
  });

  it('Retry-After is waited for; one longer than the time left fails at once', async () => {
    model.script('error429-retry');
    const started = Date.now();
    const events = await collect(provider().stream(userRequest('five')));
    assert.equal(textOf(events), 'Answer to: five');
    assert.ok(Date.now() - started >= 950, 'waited for Retry-After: 1');
    model.script('error429-retry');
    const quick = Date.now();
    const { error } = await failureOf(provider({ timeoutMs: 800 }), userRequest('six'));
    assert.ok(error instanceof AppError);
    assert.match(error.message, /429.*no time left to retry/);
    assert.ok(Date.now() - quick < 500);
  });

  it('the whole-call limit ends a call whatever its attempts do', async () => {
    model.script('no-headers', 'no-headers', 'no-headers', 'no-headers');
    const started = Date.now();
    const { error } = await failureOf(
      provider({ timeoutMs: 700, firstByteTimeoutMs: 600, maxRetries: 3 }),
      userRequest('seven'),
    );
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'timeout');
    assert.ok(Date.now() - started < 1_500);
  });

  it('a provider that keeps failing fails over to the next one', async () => {
    model.script('error500', 'error500', 'stall');
    const failing = provider({ maxRetries: 1 });
    const fallback = provider({ id: 'fallback' });
    // The fallback streams text and then stalls: that failure is final, with the text kept.
    const { error, events } = await failureOf(
      createFailoverProvider([failing, fallback]),
      userRequest('eight'),
    );
    assert.equal(textOf(events), 'Partial answer ');
    assert.ok(error instanceof AppError);
    assert.match(error.message, /stopped sending/);
    model.script('error500', 'error500');
    const answered = await collect(createFailoverProvider([failing, fallback]).stream(userRequest('nine')));
    assert.equal(textOf(answered), 'Answer to: nine');
  });
});
