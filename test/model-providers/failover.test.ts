import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { createFailoverProvider } from '../../src/model-providers/failover.ts';
import type { ModelEvent, ModelProvider } from '../../src/model-providers/types.ts';
import { collect, failureOf, textOf, userRequest } from './stream-helpers.ts';

function scripted(
  id: string,
  behaviour: 'answer' | 'fail-early' | 'fail-late',
  calls: string[],
): ModelProvider {
  return {
    id,
    demo: false,
    async *stream(): AsyncGenerator<ModelEvent> {
      calls.push(id);
      await Promise.resolve();
      if (behaviour === 'fail-early')
        throw new AppError('upstream', `model provider "${id}" failed: 500 down`);
      yield { type: 'text-delta', text: `from ${id}` };
      if (behaviour === 'fail-late')
        throw new AppError('upstream', `model provider "${id}" failed: connection lost`);
      yield { type: 'finish', reason: 'stop' };
    },
  };
}

describe('failover provider', () => {
  it('moves to the next provider when one fails before answering', async () => {
    const calls: string[] = [];
    const provider = createFailoverProvider([
      scripted('a', 'fail-early', calls),
      scripted('b', 'answer', calls),
    ]);
    const events = await collect(provider.stream(userRequest('hi')));
    assert.equal(textOf(events), 'from b');
    assert.deepEqual(calls, ['a', 'b']);
    assert.equal(provider.id, 'a');
  });

  it('does not fail over once output was streamed', async () => {
    const calls: string[] = [];
    const provider = createFailoverProvider([
      scripted('a', 'fail-late', calls),
      scripted('b', 'answer', calls),
    ]);
    const { error, events } = await failureOf(provider, userRequest('hi'));
    assert.equal(textOf(events), 'from a');
    assert.match((error as Error).message, /connection lost/);
    assert.deepEqual(calls, ['a']);
  });

  it('reports every failure when all providers fail', async () => {
    const calls: string[] = [];
    const provider = createFailoverProvider([
      scripted('a', 'fail-early', calls),
      scripted('b', 'fail-early', calls),
    ]);
    const { error } = await failureOf(provider, userRequest('hi'));
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, 'upstream');
    assert.equal(error.message, 'model provider "a" failed: 500 down; model provider "b" failed: 500 down');
  });

  it('does not try the next provider after the caller aborted', async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    const aborting: ModelProvider = {
      id: 'a',
      demo: false,
      // eslint-disable-next-line require-yield
      async *stream() {
        calls.push('a');
        controller.abort(new Error('gone'));
        await Promise.resolve();
        throw controller.signal.reason;
      },
    };
    const provider = createFailoverProvider([aborting, scripted('b', 'answer', calls)]);
    const { error } = await failureOf(provider, userRequest('hi', { signal: controller.signal }));
    assert.equal((error as Error).message, 'gone');
    assert.deepEqual(calls, ['a']);
  });

  it('refuses an empty list', () => {
    assert.throws(() => createFailoverProvider([]), AppError);
  });
});
