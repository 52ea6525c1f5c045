// A chain's ws endpoint (RuleGo's endpoint/ws) on a real listening server, with a real `ws` client:
// each message runs the chain and its result comes back on the socket (text for text, binary for
// binary, in order); behind the server's auth unless the endpoint opts out; cross-site pages refused;
// closed and replaced when the chain is saved again, gone when it is deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

interface Client {
  socket: WebSocket;
  /** Each frame received: text as a string, binary as a Buffer. */
  frames: Array<string | Buffer>;
  /** Waits for the n-th frame (1-based). */
  frame(n: number): Promise<string | Buffer>;
  closed: Promise<{ code: number; reason: string }>;
}

async function open(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
  const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  const frames: Array<string | Buffer> = [];
  socket.on('message', (data, isBinary) =>
    frames.push(isBinary ? Buffer.from(data as Buffer) : String(data as Buffer)),
  );
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += String(chunk)));
      response.on('end', () => reject(Object.assign(new Error(body), { status: response.statusCode, body })));
    });
  });
  const client: Client = {
    socket,
    frames,
    closed,
    async frame(n) {
      const deadline = Date.now() + 5000;
      while (frames.length < n) {
        if (Date.now() > deadline) throw new Error(`frame ${n} did not come; got ${frames.length}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return frames[n - 1] as string | Buffer;
    },
  };
  return client;
}

/** The HTTP status that refused an upgrade. */
async function refusedWith(url: string, headers: Record<string, string> = {}): Promise<number> {
  try {
    const client = await open(url, { headers });
    client.socket.close();
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status !== undefined) return status;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

/** A chain answering {greeting, type, meta} with a ws endpoint at `/<id>/chat/:name`. */
function echoChain(
  id: string,
  greeting: string,
  configuration: Record<string, unknown> = {},
  extraRouters: unknown[] = [],
) {
  const definition = chainDefinition(id, [
    // Binary messages go through unchanged (comment passes the message on).
    { id: 'kind', type: 'exprFilter', configuration: { expr: "metadata.messageType == '2'" } },
    { id: 'bin', type: 'comment' },
    { id: 'sw', type: 'jsFilter', configuration: { jsScript: "return msg !== 'fail';" } },
    {
      id: 't',
      type: 'jsTransform',
      configuration: {
        jsScript: `return {msg: {greeting: '${greeting} ' + metadata.name, type: msgType, meta: metadata, got: msg}, metadata, msgType};`,
      },
    },
    {
      id: 'boom',
      type: 'jsTransform',
      configuration: { jsScript: "throw new Error('refused by the chain');" },
    },
  ]);
  return {
    ...definition,
    metadata: {
      ...definition.metadata,
      connections: [
        { fromId: 'kind', toId: 'bin', type: 'True' },
        { fromId: 'kind', toId: 'sw', type: 'False' },
        { fromId: 'sw', toId: 't', type: 'True' },
        { fromId: 'sw', toId: 'boom', type: 'False' },
      ],
      endpoints: [
        {
          id: 'w1',
          type: 'endpoint/ws',
          configuration,
          routers: [{ id: 'r1', from: { path: `/${id}/chat/:name` }, to: { path: id } }, ...extraRouters],
        },
      ],
    },
  };
}

describe('chain ws endpoints', () => {
  let t: TestApp;
  let base: string;
  let token = '';
  before(async () => {
    t = await createTestApp({
      config: { security: { requireAuth: true, users: { admin: 'a-long-test-password' } } },
    });
    const http = await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = http.replace('http:', 'ws:');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'a-long-test-password' },
    });
    token = (response.json() as { token: string }).token;
    assert.ok(token, response.body);
  });
  after(() => t.close());

  const save = async (definition: unknown, id?: string) => {
    const response = await t.app.inject({
      method: id ? 'PUT' : 'POST',
      url: `/api/v1/rules${id ? `/${id}` : ''}`,
      payload: definition as Record<string, unknown>,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(response.statusCode < 300, response.body);
  };

  it('each message runs the chain and its result comes back on the socket, in order', async () => {
    await save(echoChain('wsopen', 'Hello', { auth: false }));
    const client = await open(`${base}/api/v1/endpoints/wsopen/chat/ada?lang=en`);
    try {
      client.socket.send(JSON.stringify({ n: 1 }));
      client.socket.send('plain words');
      client.socket.send('fail');
      client.socket.send(Buffer.from([0, 1, 2, 255]), { binary: true });
      const first = JSON.parse(String(await client.frame(1))) as Record<string, unknown>;
      assert.deepEqual(first, {
        greeting: 'Hello ada',
        type: 'WS:/wsopen/chat/:name',
        meta: { lang: 'en', name: 'ada', messageType: '1', path: '/wsopen/chat/ada' },
        got: { n: 1 },
      });
      const second = JSON.parse(String(await client.frame(2))) as Record<string, unknown>;
      assert.equal(second['got'], 'plain words');
      // A failed run answers {"error"}; the socket stays open for the next message.
      assert.deepEqual(JSON.parse(String(await client.frame(3))), { error: 'Error: refused by the chain' });
      // Binary in, binary out, byte for byte.
      const fourth = await client.frame(4);
      assert.ok(Buffer.isBuffer(fourth), 'a binary frame');
      assert.deepEqual([...fourth], [0, 1, 2, 255]);
      assert.equal(client.socket.readyState, WebSocket.OPEN);
    } finally {
      client.socket.close();
    }
  });

  it('behind auth: refused without a token, served with a bearer header, ?token= or a bearer.<token> protocol', async () => {
    await save(echoChain('wsclosed', 'Hi'));
    const url = `${base}/api/v1/endpoints/wsclosed/chat/bob`;
    assert.equal(await refusedWith(url), 401);
    assert.equal(await refusedWith(url, { authorization: 'Bearer not-a-token' }), 401);
    // A path no endpoint serves is a 401 too for a stranger, a 404 once signed in.
    assert.equal(await refusedWith(`${base}/api/v1/endpoints/nothing/here`), 401);
    assert.equal(
      await refusedWith(`${base}/api/v1/endpoints/nothing/here`, { authorization: `Bearer ${token}` }),
      404,
    );
    for (const options of [
      { url, headers: { authorization: `Bearer ${token}` } },
      { url: `${url}?token=${token}&x=1` },
      { url, protocols: ['chat', `bearer.${token}`] },
    ]) {
      const client = await open(options.url, options);
      try {
        client.socket.send('{}');
        const answer = JSON.parse(String(await client.frame(1))) as { greeting: string; meta: object };
        assert.equal(answer.greeting, 'Hi bob');
        // The credential never reaches the chain's metadata.
        assert.doesNotMatch(JSON.stringify(answer.meta), new RegExp(token.slice(-20)));
        if (options.protocols) assert.equal(client.socket.protocol, 'chat');
      } finally {
        client.socket.close();
      }
    }
  });

  it('a page of another site is refused, even on an endpoint without auth', async () => {
    const status = await refusedWith(`${base}/api/v1/endpoints/wsopen/chat/eve`, {
      origin: 'https://evil.example',
    });
    assert.equal(status, 403);
  });

  it('saving the chain closes its sockets (1012) and the new definition serves; deleting it removes the route', async () => {
    await save(echoChain('wsreload', 'Hello', { auth: false }));
    const url = `${base}/api/v1/endpoints/wsreload/chat/zoe`;
    const before = await open(url);
    before.socket.send('{}');
    assert.match(String(await before.frame(1)), /Hello zoe/);
    await save(echoChain('wsreload', 'Bonjour', { auth: false }), 'wsreload');
    assert.equal((await before.closed).code, 1012);
    const afterSave = await open(url);
    afterSave.socket.send('{}');
    assert.match(String(await afterSave.frame(1)), /Bonjour zoe/);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/rules/wsreload',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(removed.statusCode < 300, removed.body);
    assert.equal((await afterSave.closed).code, 1012);
    assert.equal(await refusedWith(url, { authorization: `Bearer ${token}` }), 404);
  });

  it('to.wait false runs the chain without answering', async () => {
    const quiet = chainDefinition('wsquiet', [
      {
        id: 'set',
        type: 'cacheSet',
        configuration: { items: [{ level: 'global', key: 'ws:quiet', value: '${msg.v}' }] },
      },
    ]);
    await save({
      ...quiet,
      metadata: {
        ...quiet.metadata,
        endpoints: [
          {
            id: 'q',
            type: 'ws',
            configuration: { auth: false },
            routers: [{ from: { path: '/quiet' }, to: { path: 'wsquiet', wait: false } }],
          },
        ],
      },
    });
    await save(
      chainDefinition('wsquietReader', [
        {
          id: 'get',
          type: 'cacheGet',
          configuration: { keys: [{ level: 'global', key: 'ws:quiet' }], outputMode: 2 },
        },
      ]),
    );
    const client = await open(`${base}/api/v1/endpoints/quiet`);
    try {
      client.socket.send(JSON.stringify({ v: 42 }));
      const deadline = Date.now() + 5000;
      let value: unknown;
      while (value !== 42 && Date.now() < deadline) {
        const read = await t.app.inject({
          method: 'POST',
          url: '/api/v1/rules/wsquietReader/execute',
          payload: {},
          headers: { authorization: `Bearer ${token}` },
        });
        value = read.statusCode === 200 ? (read.json() as Record<string, unknown>)['ws:quiet'] : undefined;
        if (value !== 42) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(value, 42);
      // A ping round trip after the run: any answer to the message would have come before the pong.
      await new Promise<void>((resolve) => {
        client.socket.once('pong', () => resolve());
        client.socket.ping();
      });
      assert.equal(client.frames.length, 0);
    } finally {
      client.socket.close();
    }
  });

  it('the event sockets still work beside the endpoints', async () => {
    // /api/v1/ws is not under /api/v1/endpoints: the event API takes it as before.
    const client = await open(`${base}/api/v1/ws`, { headers: { authorization: `Bearer ${token}` } });
    try {
      assert.match(String(await client.frame(1)), /"subscribed"/);
    } finally {
      client.socket.close();
    }
  });
});
