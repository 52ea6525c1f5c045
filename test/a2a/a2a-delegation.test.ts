// Two Agent Service instances on 127.0.0.1: an agent of the first delegates to an agent of the
// second through the `a2a` tool, sees the remote's tool calls streamed, and a client that stops
// the first turn stops the remote turn within a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { waitFor, within } from './a2a-helpers.ts';

const REMOTE_KEY = 'sk-key-of-instance-a-at-instance-b-0123';

interface ToolCallChunk {
  type: string;
  toolCallName: string;
  toolType: string;
  content?: string;
}

describe('A2A delegation between two instances', () => {
  let upstreamA: FakeUpstream;
  let upstreamB: FakeUpstream;
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    upstreamA = await startFakeUpstream();
    upstreamB = await startFakeUpstream();
    b = await createTestApp({
      listen: true,
      config: {
        models: upstreamB.modelsConfig(),
        security: { requireAuth: true, users: { admin: 'secret-password' } },
        channels: { api: { accounts: { instance_a: { api_key: REMOTE_KEY, agents: ['worker'] } } } },
      },
    });
    await b.services.chains.create(
      agentDefinition('worker', { tools: [{ type: 'builtin', name: 'read' }] }),
      { kind: 'agent' },
    );
    a = await createTestApp({ listen: true, config: { models: upstreamA.modelsConfig() } });
    const response = await a.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('boss', {
        tools: [
          {
            type: 'a2a',
            name: 'ask_worker',
            config: { url: `${b.url}/api/v1/a2a/worker/.well-known/agent-card.json`, apiKey: REMOTE_KEY },
          },
        ],
      }),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    await a.close();
    await b.close();
    await upstreamA.close();
    await upstreamB.close();
  });

  function chat(signal?: AbortSignal): Promise<Response> {
    return fetch(`${a.url}/api/v1/chat/completions`, {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: { 'content-type': 'application/json', 'x-stream-protocol': 'agui' },
      body: JSON.stringify({
        model: 'boss',
        stream: true,
        messages: [{ role: 'user', content: 'delegate it' }],
      }),
    });
  }

  it('an agent delegates to a remote agent and sees its tool calls as they happen', async () => {
    upstreamA.script(
      { toolCalls: [{ name: 'ask_worker', arguments: { input: 'count the notes' } }] },
      { text: 'The worker says: 3 notes.' },
    );
    upstreamB.script(
      { toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] },
      { text: '3 notes' },
    );
    const response = await chat();
    assert.equal(response.status, 200);
    const chunks = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map(
        (frame) =>
          JSON.parse(frame.slice(6)) as {
            choices: Array<{ delta: { content?: string; tool_calls?: ToolCallChunk[] } }>;
          },
      );
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    assert.deepEqual(
      calls.map((call) => `${call.type} ${call.toolCallName} ${call.toolType}`),
      [
        'TOOL_CALL_START ask_worker subagent',
        'TOOL_CALL_START read subagent',
        'TOOL_CALL_RESULT read subagent',
        'TOOL_CALL_RESULT ask_worker subagent',
      ],
    );
    assert.equal(calls.at(-1)?.content, '3 notes');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, 'The worker says: 3 notes.');
    const asked = upstreamB.requests[0] as { messages: Array<{ role: string; content: string }> };
    assert.equal(asked.messages.at(-1)?.content, 'count the notes');
  });

  it('a client that stops the turn stops the remote turn within one second', async () => {
    upstreamA.script({ toolCalls: [{ name: 'ask_worker', arguments: { input: 'take forever' } }] });
    upstreamB.failNext('hang', 1);
    const aborts = upstreamB.clientAborts;
    const requests = upstreamB.requestCount;
    const controller = new AbortController();
    const response = await chat(controller.signal);
    assert.equal(response.status, 200);
    await waitFor(() => upstreamB.requestCount > requests);
    const stopped = Date.now();
    controller.abort();
    await within(upstreamB.waitForClientAbort(aborts), 'the remote model call was not stopped');
    const elapsed = Date.now() - stopped;
    assert.ok(elapsed < 1000, `the remote model call stopped after ${elapsed} ms`);
  });

  it('a remote that refuses the key fails the tool call with a clear error, not the turn', async () => {
    const response = await a.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('intruder', {
        tools: [
          {
            type: 'a2a',
            name: 'ask',
            config: { url: `${b.url}/api/v1/a2a/worker`, apiKey: 'sk-wrong-key-0123456789' },
          },
        ],
      }),
    });
    assert.equal(response.statusCode, 201, response.body);
    upstreamA.script({ toolCalls: [{ name: 'ask', arguments: { input: 'hi' } }] }, { text: 'could not ask' });
    const answer = await a.app.inject({
      method: 'POST',
      url: '/api/v1/chat/completions',
      payload: { model: 'intruder', messages: [{ role: 'user', content: 'go' }] },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const toolMessage = (
      upstreamA.requests.at(-1) as { messages: Array<{ role: string; content: string }> }
    ).messages.find((entry) => entry.role === 'tool');
    assert.match(
      toolMessage?.content ?? '',
      /A2A agent http:\/\/127\.0\.0\.1:\d+\/api\/v1\/a2a\/worker failed/,
    );
    assert.doesNotMatch(toolMessage?.content ?? '', /sk-wrong-key/);
  });

  it('an a2a tool without a valid url is refused when the agent is saved', async () => {
    const response = await a.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('broken', {
        tools: [{ type: 'a2a', name: 'ask', config: { url: 'ftp://x' } }],
      }),
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.match((response.json() as { error: string }).error, /url: must be an http\(s\) URL/);
  });
});
