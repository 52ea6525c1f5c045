// The chat endpoint driven by real OpenAI clients (openai SDK, Vercel AI SDK, LangChain) against an
// agent whose upstream is aimock on loopback.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { LLMock } from '@copilotkit/aimock';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

interface UpstreamMessage {
  role: string;
  content?: unknown;
}

describe('chat completions with real clients', () => {
  let t: TestApp;
  let mock: LLMock;
  let client: OpenAI;
  const seen: UpstreamMessage[][] = [];

  before(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    mock.onMessage(/.*/, (request) => {
      const messages = request.messages as UpstreamMessage[];
      seen.push(messages);
      const last = messages.at(-1);
      if (last?.role === 'tool') return { content: `The notes say: ${String(last.content)}` };
      const text = String(last?.content ?? '');
      if (/read my notes/.test(text))
        return { toolCalls: [{ name: 'read', arguments: '{"path":"notes.txt"}', id: 'call_read_1' }] };
      if (/what did I say/.test(text))
        return { content: `You said: ${String(messages.find((m) => m.role === 'user')?.content)}` };
      return { content: 'Hello from aimock' };
    });
    await mock.start();
    t = await createTestApp({
      listen: true,
      config: {
        models: {
          default_provider: 'mock',
          providers: {
            mock: { base_url: `${mock.url}/v1`, api_key: 'mock-upstream-key', model: 'gpt-mock' },
          },
        },
      },
    });
    await writeFile(`${await t.services.workspace('main')}/notes.txt`, 'buy milk');
    client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: 'sk-anything', maxRetries: 0 });
  });
  after(async () => {
    await t.close();
    await mock.stop();
  });

  it('openai SDK: a non-streamed completion has the documented shape', async () => {
    const completion = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.model, 'main');
    assert.ok(Number.isInteger(completion.created));
    assert.match(completion.id, /^chatcmpl-/);
    assert.deepEqual(completion.choices, [
      { index: 0, message: { role: 'assistant', content: 'Hello from aimock' }, finish_reason: 'stop' },
    ]);
    assert.ok((completion.usage?.total_tokens ?? 0) > 0, 'usage comes from the provider');
  });

  it('openai SDK: a streamed completion starts with the role, ends with stop, then usage and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const part of stream) chunks.push(part);
    assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, 'Hello from aimock');
    const stop = chunks.at(-2);
    assert.deepEqual(stop?.choices, [{ index: 0, delta: {}, finish_reason: 'stop' }]);
    const usage = chunks.at(-1);
    assert.deepEqual(usage?.choices, []);
    assert.ok((usage?.usage?.total_tokens ?? 0) > 0);
    for (const part of chunks.slice(0, -1)) assert.equal(part.choices[0]?.index, 0);
  });

  it("openai SDK: the stream helper's finalChatCompletion() works", async () => {
    const runner = client.chat.completions.stream({
      model: 'main',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0]?.message.content, 'Hello from aimock');
    assert.equal(final.choices[0]?.finish_reason, 'stop');
  });

  it('runs tools on the server; the default stream carries no tool_calls', async () => {
    const stream = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'read my notes' }],
      stream: true,
    });
    let text = '';
    for await (const part of stream) {
      assert.equal(part.choices[0]?.delta.tool_calls, undefined);
      text += part.choices[0]?.delta.content ?? '';
    }
    assert.match(text, /^The notes say: +1\tbuy milk$/);
  });

  it('X-Stream-Protocol: agui adds TOOL_CALL_START and TOOL_CALL_RESULT chunks', async () => {
    const response = await fetch(`${t.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-stream-protocol': 'agui' },
      body: JSON.stringify({
        model: 'main',
        stream: true,
        messages: [{ role: 'user', content: 'read my notes' }],
      }),
    });
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    assert.equal(frames.at(-1), 'data: [DONE]');
    const calls = frames
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.slice('data: '.length)))
      .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    assert.deepEqual(calls, [
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call_read_1',
        toolCallName: 'read',
        arguments: '{"path":"notes.txt"}',
        toolType: 'builtin',
      },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'result-call_read_1',
        role: 'tool',
        toolCallId: 'call_read_1',
        toolCallName: 'read',
        content: calls[1]?.content,
        toolType: 'builtin',
      },
    ]);
    assert.match(calls[1]?.content, /buy milk/);
  });

  it('Vercel AI SDK: generateText and streamText', async () => {
    const provider = createOpenAICompatible({
      name: 'agent-service',
      baseURL: `${t.url}/api/v1`,
      apiKey: 'sk-anything',
    });
    const generated = await generateText({ model: provider('main'), prompt: 'hi' });
    assert.equal(generated.text, 'Hello from aimock');
    const streamed = streamText({ model: provider('main'), prompt: 'read my notes' });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    assert.match(text, /^The notes say: +1\tbuy milk$/);
  });

  it('LangChain ChatOpenAI: invoke and stream', async () => {
    const model = new ChatOpenAI({
      model: 'main',
      apiKey: 'sk-anything',
      configuration: { baseURL: `${t.url}/api/v1` },
      maxRetries: 0,
    });
    const answer = await model.invoke('hi');
    assert.equal(answer.content, 'Hello from aimock');
    let text = '';
    for await (const part of await model.stream('read my notes')) text += String(part.content);
    assert.match(text, /^The notes say: +1\tbuy milk$/);
  });

  it('sessionId continues a conversation; without it the request is stateless', async () => {
    const sessionId = `s-${Date.now()}`;
    await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'my name is Ada' }],
      sessionId,
    } as never);
    const second = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'what did I say?' }],
      sessionId,
    } as never);
    assert.equal(second.choices[0]?.message.content, 'You said: my name is Ada');
    const upstream = seen.at(-1) ?? [];
    assert.deepEqual(
      upstream.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]),
      [
        ['user', 'my name is Ada'],
        ['assistant', 'Hello from aimock'],
        ['user', 'what did I say?'],
      ],
    );
    const stateless = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'what did I say?' }],
    });
    assert.equal(stateless.choices[0]?.message.content, 'You said: what did I say?');
  });

  it('sessions/clear removes the history it names, and an unknown session is success false', async () => {
    const sessionId = `clear-${Date.now()}`;
    await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'my name is Bob' }],
      sessionId,
    } as never);
    const cleared = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions/clear',
      payload: { agentId: 'main', sessionKey: sessionId, channel: 'api', scope: 'per_peer' },
    });
    assert.deepEqual(cleared.json(), {
      success: true,
      message: `session "agent:main:channel:api:scope:per_peer:${sessionId}" cleared`,
    });
    const after = await client.chat.completions.create({
      model: 'main',
      messages: [{ role: 'user', content: 'what did I say?' }],
      sessionId,
    } as never);
    assert.equal(after.choices[0]?.message.content, 'You said: what did I say?');
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions/clear',
      payload: { agentId: 'main', sessionKey: 'never-used' },
    });
    assert.equal(unknown.statusCode, 200);
    assert.equal(unknown.json().success, false);
    assert.match(unknown.json().message, /not found/);
  });
});
