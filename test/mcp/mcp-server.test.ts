// The agents as an MCP server, driven by the MCP SDK's own client over streamable HTTP on a real
// server: tool list per key, agent calls with sessions, progress, cancellation and auth.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition, chainDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';

const ADMIN_KEY = 'sk-admin-key-for-mcp-tests-0123456789';
const APP_KEY = 'sk-app-key-limited-to-helper-0123456789';

describe('MCP server', () => {
  let upstream: FakeUpstream;
  let t: TestApp;
  let endpoint: URL;
  const clients: Client[] = [];

  async function connect(key = ADMIN_KEY): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function rpc(
    body: unknown,
    key = ADMIN_KEY,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  }

  before(async () => {
    upstream = await startFakeUpstream();
    t = await createTestApp({
      listen: true,
      config: {
        models: upstream.modelsConfig(),
        security: { requireAuth: true, users: { admin: `secret-password:${ADMIN_KEY}` } },
        channels: { api: { accounts: { app: { api_key: APP_KEY, agents: ['helper'] } } } },
      },
    });
    endpoint = new URL('/api/v1/mcp', t.url);
    const headers = { authorization: `Bearer ${ADMIN_KEY}` };
    const create = async (url: string, payload: unknown): Promise<void> => {
      const response = await t.app.inject({ method: 'POST', url, headers, payload: payload as object });
      assert.equal(response.statusCode, 201, response.body);
    };
    await create(
      '/api/v1/agents',
      agentDefinition('helper', { tools: [], additionalInfo: { description: 'Helps with anything.' } }),
    );
    const double = {
      id: 'double',
      type: 'jsTransform',
      configuration: { jsScript: 'return {msg: {value: msg.n * 2}, metadata: metadata, msgType: msgType};' },
    };
    const inputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    await create(
      '/api/v1/rules',
      chainDefinition('doubler', [double], [], {
        additionalInfo: { mcp: true, inputSchema, description: 'Doubles n.' },
      }),
    );
    await create('/api/v1/rules', chainDefinition('hidden', [{ ...double, id: 'x' }]));
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
    await upstream.close();
  });

  it('lists every agent as a tool with message/sessionId input, and marked rule chains with their schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, ['doubler', 'helper', 'main']);
    const helper = tools.find((tool) => tool.name === 'helper');
    assert.equal(helper?.description, 'Helps with anything.');
    assert.deepEqual(helper?.inputSchema.required, ['message']);
    assert.ok(helper?.inputSchema.properties?.['sessionId']);
    assert.equal(helper?.outputSchema?.type, 'object');
    const doubler = tools.find((tool) => tool.name === 'doubler');
    assert.deepEqual(doubler?.inputSchema.required, ['n']);
  });

  it('a key limited to some agents lists and calls only those', async () => {
    const client = await connect(APP_KEY);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['helper'],
    );
    await assert.rejects(
      client.callTool({ name: 'main', arguments: { message: 'hi' } }),
      /unknown tool "main"/,
    );
  });

  it('calling an agent answers its text and structured content', async () => {
    upstream.script({ text: 'Hello from helper.' });
    const client = await connect();
    const result = await client.callTool({ name: 'helper', arguments: { message: 'hi there' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello from helper.' }]);
    assert.equal((result.structuredContent as { answer: string }).answer, 'Hello from helper.');
    assert.equal((result.structuredContent as { agentId: string }).agentId, 'helper');
    assert.equal(result.isError, undefined);
    const sent = upstream.requests.at(-1) as { messages: Array<{ role: string; content: string }> };
    assert.equal(sent.messages.at(-1)?.content, 'hi there');
  });

  it('calls with the same sessionId share the conversation', async () => {
    const client = await connect();
    upstream.script({ text: 'first answer' }, { text: 'second answer' });
    await client.callTool({ name: 'helper', arguments: { message: 'remember 42', sessionId: 'mcp-s1' } });
    const second = await client.callTool({
      name: 'helper',
      arguments: { message: 'what?', sessionId: 'mcp-s1' },
    });
    assert.equal((second.structuredContent as { sessionId: string }).sessionId, 'mcp-s1');
    const sent = upstream.requests.at(-1) as { messages: Array<{ content: string }> };
    const contents = sent.messages.map((message) => message.content);
    assert.ok(contents.includes('remember 42'), JSON.stringify(contents));
    assert.ok(contents.includes('first answer'));
  });

  it('calls a marked rule chain with its arguments', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'doubler', arguments: { n: 21 } });
    assert.deepEqual(result.structuredContent, { results: [{ value: 42 }] });
    await assert.rejects(client.callTool({ name: 'hidden', arguments: {} }), /unknown tool "hidden"/);
  });

  it('bad arguments are an invalid-params error', async () => {
    const client = await connect();
    await assert.rejects(
      client.callTool({ name: 'helper', arguments: { text: 'x' } }),
      /message: a string is required/,
    );
    await assert.rejects(
      client.callTool({ name: 'helper', arguments: { message: 'x', sessionId: 'x'.repeat(201) } }),
      /sessionId: a string of 1-200 characters/,
    );
  });

  it('sends progress notifications while the turn runs', async () => {
    upstream.script({ text: 'streamed answer' });
    const client = await connect();
    const steps: Array<{ progress: number; message?: string | undefined }> = [];
    const result = await client.callTool({ name: 'helper', arguments: { message: 'go' } }, undefined, {
      onprogress: (progress) => steps.push(progress),
    });
    assert.equal((result.content as Array<{ text: string }>)[0]?.text, 'streamed answer');
    assert.ok(steps.length >= 1, 'at least one progress notification');
    assert.equal(steps.map((step) => step.message).join(''), 'streamed answer');
    assert.deepEqual(
      steps.map((step) => step.progress),
      steps.map((_step, index) => index + 1),
    );
  });

  it('a cancelled call (notifications/cancelled) stops the turn and its model call', async () => {
    const client = await connect();
    upstream.failNext('hang', 1);
    const aborts = upstream.clientAborts;
    const requests = upstream.requestCount;
    const controller = new AbortController();
    const call = client.callTool({ name: 'helper', arguments: { message: 'slow' } }, undefined, {
      signal: controller.signal,
    });
    await waitFor(() => upstream.requestCount > requests);
    controller.abort('user cancelled');
    await assert.rejects(call);
    await within(upstream.waitForClientAbort(aborts), 'the model call was not stopped');
  });

  it('closing the HTTP request of a stateless call stops the turn', async () => {
    upstream.failNext('hang', 1);
    const aborts = upstream.clientAborts;
    const requests = upstream.requestCount;
    const controller = new AbortController();
    const response = await fetch(endpoint, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'helper', arguments: { message: 'slow' } },
      }),
    });
    // The answer is an event stream: its headers come at once, the result when the turn ends.
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    await waitFor(() => upstream.requestCount > requests);
    controller.abort();
    await within(upstream.waitForClientAbort(aborts), 'the model call was not stopped');
  });

  it('closing the HTTP request of a call in a session stops that turn, and the session goes on', async () => {
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id') as string;
    await init.text();
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    upstream.failNext('hang', 1);
    const aborts = upstream.clientAborts;
    const requests = upstream.requestCount;
    const controller = new AbortController();
    const call = await fetch(endpoint, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...session,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'helper', arguments: { message: 'slow' } },
      }),
    });
    assert.equal(call.status, 200);
    await waitFor(() => upstream.requestCount > requests);
    controller.abort();
    await within(upstream.waitForClientAbort(aborts), 'the model call was not stopped');
    const after = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, ADMIN_KEY, session);
    assert.equal(after.status, 200);
    assert.match(await after.text(), /"name":"helper"/);
  });

  it('serves a stateless request without initialize or session', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, APP_KEY, {
      accept: 'application/json, text/event-stream',
    });
    assert.equal(response.status, 200);
    const text = await response.text();
    assert.match(text, /"name":"helper"/);
    assert.equal(response.headers.get('mcp-session-id'), null);
  });

  it('a session belongs to the key that opened it', async () => {
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    assert.equal(init.status, 200);
    const sessionId = init.headers.get('mcp-session-id');
    assert.ok(sessionId);
    await init.text();
    const stolen = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, APP_KEY, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    });
    assert.equal(stolen.status, 404);
    assert.deepEqual(await stolen.json(), {
      error: 'MCP session not found (it ended, expired, or belongs to another caller)',
    });
    const ended = await fetch(endpoint, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    assert.equal(ended.status, 200);
    const gone = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, ADMIN_KEY, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    });
    assert.equal(gone.status, 404);
  });

  it('refuses a body that is not JSON-RPC, and a GET without a session, with an {error}', async () => {
    const notRpc = await rpc([1, 2, 3]);
    assert.equal(notRpc.status, 400);
    assert.deepEqual(await notRpc.json(), {
      error: 'the body must be a JSON-RPC 2.0 message or a batch of them',
    });
    const stream = await fetch(endpoint, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'text/event-stream' },
    });
    assert.equal(stream.status, 400);
    assert.deepEqual(await stream.json(), { error: 'the Mcp-Session-Id header is required' });
  });

  it('refuses a request without credentials or with a wrong key', async () => {
    const none = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(none.status, 401);
    assert.deepEqual(await none.json(), { error: 'missing Authorization: Bearer <token or API key>' });
    const wrong = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'sk-wrong-key-0123456789');
    assert.equal(wrong.status, 401);
    assert.deepEqual(await wrong.json(), { error: 'invalid or expired credentials' });
  });
});

/** Fails instead of hanging when `promise` does not settle within `ms`. */
async function within<T>(promise: Promise<T>, message: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
