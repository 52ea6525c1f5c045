// A turn's token usage is kept with its answer: the messages endpoint returns on the turn's last
// assistant message the same figures the chat answer reported (every model call of the turn
// summed) and the model that answered, so the chat's usage footer reads the same after a reload.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

interface MessageView {
  role: string;
  content: string | null;
  status?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number; model?: string };
}

describe('usage kept with each answer', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Plain answer.' });
  });
  after(() => upstream?.close());
  afterEach(() => t?.close());

  const messages = async (sessionId: string): Promise<MessageView[]> => {
    const answer = await t.app.inject({ url: `/api/v1/agents/main/sessions/${sessionId}/messages` });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json().data as MessageView[];
  };

  it('returns each turn usage on its last assistant message, as the chat answer reported it', async () => {
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    upstream.script(
      { toolCalls: [{ id: 'call-1', name: 'glob', arguments: { pattern: '*' } }] },
      { text: 'Two files.' },
    );
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'main', sessionId: 'u1', messages: [{ role: 'user', content: 'list files' }] },
    });
    assert.equal(first.statusCode, 200, first.body);
    const reported = first.json().usage;
    assert.ok(reported.total_tokens > 0, first.body);
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'main', sessionId: 'u1', messages: [{ role: 'user', content: 'thanks' }] },
    });
    assert.equal(second.statusCode, 200, second.body);

    const stored = await messages('u1');
    const withUsage = stored.filter((message) => message.usage);
    assert.equal(withUsage.length, 2, 'one usage per turn');
    // The first turn: tool call, tool result, answer; the usage is on the answer and sums both calls.
    const answer = stored.find((message) => message.content === 'Two files.');
    assert.deepEqual(answer?.usage, {
      promptTokens: reported.prompt_tokens,
      completionTokens: reported.completion_tokens,
      totalTokens: reported.total_tokens,
      model: 'fake-model',
    });
    assert.equal(
      stored.filter((message) => message.role === 'assistant' && message.content === null)[0]?.usage,
      undefined,
      'the tool-call step carries no usage of its own',
    );
    assert.deepEqual(stored.at(-1)?.usage, {
      promptTokens: second.json().usage.prompt_tokens,
      completionTokens: second.json().usage.completion_tokens,
      totalTokens: second.json().usage.total_tokens,
      model: 'fake-model',
    });
    assert.equal(stored.filter((message) => message.role === 'user')[0]?.usage, undefined);
  });

  it('a streamed answer keeps the usage its final chunk reported', async () => {
    t = await createTestApp({ config: { models: upstream.modelsConfig() } });
    const streamed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: {
        model: 'main',
        sessionId: 'u2',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hello' }],
      },
    });
    assert.equal(streamed.statusCode, 200);
    const chunks = streamed.body
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: Record<string, number> });
    const final = chunks.find((chunk) => chunk.usage)?.usage;
    assert.ok(final, streamed.body);
    const stored = await messages('u2');
    assert.deepEqual(stored.at(-1)?.usage, {
      promptTokens: final['prompt_tokens'],
      completionTokens: final['completion_tokens'],
      totalTokens: final['total_tokens'],
      model: 'fake-model',
    });
  });

  it('is documented in the OpenAPI document', async () => {
    t = await createTestApp();
    const document = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const text = JSON.stringify(document);
    assert.match(text, /"usage":\{[^]*"promptTokens"/);
  });
});
