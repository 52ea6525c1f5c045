// The agents as A2A servers, driven by the @a2a-js/sdk client (v1.0 methods) and by raw v0.3
// JSON-RPC calls against a real server: cards, SendMessage, SendStreamingMessage, GetTask,
// CancelTask, re-subscription, contexts as sessions, auth.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { a2aClient, kinds, send, textOf, waitFor, within } from './a2a-helpers.ts';

const ADMIN_KEY = 'sk-admin-key-for-a2a-tests-0123456789';
const APP_KEY = 'sk-app-key-limited-to-main-0123456789';
const COMPLETED = 3;
const CANCELED = 5;

describe('A2A server', () => {
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        security: { requireAuth: true, users: { admin: `secret-password:${ADMIN_KEY}` } },
        channels: { api: { accounts: { app: { api_key: APP_KEY, agents: ['main'] } } } },
      },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      payload: agentDefinition('worker', { tools: [], additionalInfo: { description: 'Does the work.' } }),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    await t.close();
    await upstream.close();
  });

  it('serves an agent card per agent naming its JSON-RPC endpoint and the Bearer scheme', async () => {
    const response = await fetch(`${t.url}/api/v1/a2a/worker/.well-known/agent-card.json`);
    assert.equal(response.status, 200);
    const card = (await response.json()) as Record<string, unknown>;
    assert.equal(card['name'], 'worker');
    assert.equal(card['description'], 'Does the work.');
    assert.deepEqual(card['supportedInterfaces'], [
      { url: `${t.url}/api/v1/a2a/worker`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${t.url}/api/v1/a2a/worker`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    assert.deepEqual(Object.keys(card['securitySchemes'] as object), ['bearer']);
    assert.deepEqual(card['securityRequirements'], [{ schemes: { bearer: {} } }]);
    assert.deepEqual((card['capabilities'] as { streaming: boolean }).streaming, true);
    const unknown = await fetch(`${t.url}/api/v1/a2a/nobody/.well-known/agent-card.json`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'agent "nobody" not found' });
  });

  it('the server card lists the agents the caller may use', async () => {
    const card = async (key?: string): Promise<{ skills: Array<{ id: string }> }> => {
      const response = await fetch(`${t.url}/.well-known/agent-card.json`, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      assert.equal(response.status, 200);
      return (await response.json()) as { skills: Array<{ id: string }> };
    };
    assert.deepEqual(
      (await card(ADMIN_KEY)).skills.map((skill) => skill.id),
      ['main', 'worker'],
    );
    assert.deepEqual(
      (await card(APP_KEY)).skills.map((skill) => skill.id),
      ['main'],
    );
    assert.deepEqual((await card()).skills, []);
  });

  it('SendMessage answers a completed task whose artifact is the answer; a context is a session', async () => {
    const client = await a2aClient(t.url, 'worker', ADMIN_KEY);
    upstream.script({ text: 'first reply' }, { text: 'second reply' });
    const contextId = randomUUID();
    const task = (await client.sendMessage(send('remember 7', contextId))) as Task;
    assert.equal(task.status?.state, COMPLETED);
    assert.equal(task.contextId, contextId);
    assert.equal(task.artifacts.length, 1);
    assert.equal(task.artifacts[0]?.parts.length, 1);
    assert.equal(textOf(task.artifacts[0]?.parts), 'first reply');
    assert.equal(textOf(task.status?.message?.parts), 'first reply');
    await client.sendMessage(send('what number?', contextId));
    const sent = upstream.requests.at(-1) as { messages: Array<{ content: string }> };
    const contents = sent.messages.map((entry) => entry.content);
    assert.ok(contents.includes('remember 7') && contents.includes('first reply'), JSON.stringify(contents));

    const fetched = await client.getTask({ tenant: '', id: task.id });
    assert.equal(fetched.status?.state, COMPLETED);
    assert.equal(fetched.id, task.id);

    const listed = await client.listTasks({
      tenant: '',
      contextId,
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    assert.equal(listed.totalSize, 2);
    assert.ok(listed.tasks.some((entry) => entry.id === task.id));
    assert.ok(listed.tasks.every((entry) => entry.contextId === contextId));
  });

  it('SendStreamingMessage streams the task, working status, answer chunks and completion', async () => {
    const client = await a2aClient(t.url, 'worker', ADMIN_KEY);
    upstream.script({ text: 'streamed reply' });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send('stream please'))) events.push(event);
    const seen = kinds(events);
    assert.equal(seen[0], 'task');
    assert.ok(seen.includes('artifactUpdate'));
    const last = events.at(-1)?.payload;
    assert.equal(last?.$case, 'statusUpdate');
    assert.equal(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined, COMPLETED);
    // Pieces are appended as they come; the last chunk replaces them with the whole answer.
    const chunks = events.flatMap((event) =>
      event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : [],
    );
    assert.ok(chunks.length >= 2);
    assert.equal(
      chunks
        .slice(0, -1)
        .map((chunk) => textOf(chunk.artifact?.parts))
        .join(''),
      'streamed reply',
    );
    assert.equal(chunks.at(-1)?.append, false);
    assert.equal(chunks.at(-1)?.lastChunk, true);
    assert.equal(textOf(chunks.at(-1)?.artifact?.parts), 'streamed reply');
  });

  it('CancelTask stops the running turn; a re-subscription sees the cancellation', async () => {
    const client = await a2aClient(t.url, 'worker', ADMIN_KEY);
    upstream.failNext('hang', 1);
    const aborts = upstream.clientAborts;
    const requests = upstream.requestCount;
    // Leave the stream after its first event: the task goes on, and can be re-subscribed.
    let taskId = '';
    for await (const event of client.sendMessageStream(send('take your time'))) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      break;
    }
    assert.ok(taskId);
    await waitFor(() => upstream.requestCount > requests);
    const working = await client.getTask({ tenant: '', id: taskId });
    assert.notEqual(working.status?.state, COMPLETED);
    const resubscribed: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) resubscribed.push(event);
    })();
    await waitFor(() => resubscribed.length > 0);
    const started = Date.now();
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    assert.equal(cancelled.status?.state, CANCELED);
    await within(upstream.waitForClientAbort(aborts), 'the model call was not stopped');
    assert.ok(Date.now() - started < 1000, 'the model call stopped within a second');
    await following;
    const last = resubscribed.at(-1)?.payload;
    assert.equal(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined, CANCELED);
    assert.equal((await client.getTask({ tenant: '', id: taskId })).status?.state, CANCELED);
  });

  it('GetTask of an unknown task, or of another caller, is a task-not-found error', async () => {
    const client = await a2aClient(t.url, 'worker', ADMIN_KEY);
    await assert.rejects(client.getTask({ tenant: '', id: randomUUID() }), /not found/i);
    upstream.script({ text: 'mine' });
    const task = (await client.sendMessage(send('hello'))) as Task;
    const response = await rpc(
      'worker',
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } },
      APP_KEY,
    );
    // The app key may not use this agent at all.
    assert.equal(response.status, 403);
    assert.deepEqual(await response.json(), { error: 'this API key may not use agent "worker"' });
  });

  it('answers the v0.3 method names older clients send', async () => {
    upstream.script({ text: 'legacy reply' }, { text: 'legacy stream' });
    const sent = await rpc('worker', {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'hi' }],
        },
      },
    });
    assert.equal(sent.status, 200);
    const task = (
      (await sent.json()) as {
        result: {
          kind: string;
          id: string;
          status: { state: string };
          artifacts: Array<{ parts: Array<{ text: string }> }>;
        };
      }
    ).result;
    assert.equal(task.kind, 'task');
    assert.equal(task.status.state, 'completed');
    assert.equal(task.artifacts[0]?.parts[0]?.text, 'legacy reply');

    const got = await rpc('worker', { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: task.id } });
    assert.equal(((await got.json()) as { result: { id: string } }).result.id, task.id);

    const stream = await rpc('worker', {
      jsonrpc: '2.0',
      id: 3,
      method: 'message/stream',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'go' }],
        },
      },
    });
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    const frames = (await stream.text()).split('\n\n').filter((frame) => frame.startsWith('data: '));
    const results = frames.map(
      (frame) =>
        (JSON.parse(frame.slice(6)) as { result: { kind: string; status?: { state: string } } }).result,
    );
    assert.equal(results[0]?.kind, 'task');
    assert.equal(results.at(-1)?.status?.state, 'completed');

    const cancel = await rpc('worker', {
      jsonrpc: '2.0',
      id: 4,
      method: 'tasks/cancel',
      params: { id: task.id },
    });
    const body = (await cancel.json()) as { error?: { code: number } };
    assert.equal(body.error?.code, -32002, 'a completed task is not cancelable');
  });

  it('v0.3 tasks/resubscribe follows a running task to its cancellation by tasks/cancel', async () => {
    upstream.failNext('hang', 1);
    const requests = upstream.requestCount;
    const sent = await rpc('worker', {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'wait' }],
        },
      },
    });
    const reader = (sent.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = (JSON.parse(first.split('\n\n')[0]?.slice(6) ?? '{}') as { result: { id: string } }).result
      .id;
    await reader.cancel();
    await waitFor(() => upstream.requestCount > requests);
    const following = await rpc('worker', {
      jsonrpc: '2.0',
      id: 2,
      method: 'tasks/resubscribe',
      params: { id: taskId },
    });
    assert.match(following.headers.get('content-type') ?? '', /text\/event-stream/);
    const cancel = await rpc('worker', {
      jsonrpc: '2.0',
      id: 3,
      method: 'tasks/cancel',
      params: { id: taskId },
    });
    const cancelled = (await cancel.json()) as { result: { status: { state: string } } };
    assert.equal(cancelled.result.status.state, 'canceled');
    const frames = (await following.text()).split('\n\n').filter((frame) => frame.startsWith('data: '));
    const last = JSON.parse(frames.at(-1)?.slice(6) ?? '{}') as { result: { status?: { state: string } } };
    assert.equal(last.result.status?.state, 'canceled');
  });

  it('refuses calls without credentials, and JSON-RPC errors for unknown methods', async () => {
    const none = await fetch(`${t.url}/api/v1/a2a/worker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
    });
    assert.equal(none.status, 401);
    assert.deepEqual(await none.json(), { error: 'missing Authorization: Bearer <token or API key>' });
    const unknownAgent = await rpc('ghost', {
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'x' },
    });
    assert.equal(unknownAgent.status, 404);
    const unknownMethod = await rpc('worker', { jsonrpc: '2.0', id: 9, method: 'NoSuchMethod', params: {} });
    const body = (await unknownMethod.json()) as { id: number; error: { code: number } };
    assert.equal(body.id, 9);
    assert.equal(body.error.code, -32601);
  });

  async function rpc(agentId: string, body: unknown, key = ADMIN_KEY): Promise<Response> {
    return fetch(`${t.url}/api/v1/a2a/${agentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
});
