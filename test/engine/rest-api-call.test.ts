import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { TestContext } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import type { NetworkPolicy } from '../../src/engine/types.ts';
import { chain, createEngine, testServices } from './helpers.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const requests: Seen[] = [];
let server: Server;
let base = '';

before(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url?.startsWith('/missing')) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      } else if (request.url?.startsWith('/huge')) {
        // 11 MiB in chunks, with no content-length: only the running count can stop it.
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(1024 * 1024);
        let sent = 0;
        const more = (): void => {
          while (sent < 11 && !response.destroyed) {
            sent += 1;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        more();
      } else if (request.url?.startsWith('/created')) {
        response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}');
      } else if (request.url?.startsWith('/slow')) {
        setTimeout(() => response.writeHead(200).end('late'), 500);
      } else {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ echoed: body, url: request.url }));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

/** An engine whose restApiCall nodes may reach this machine, where the fakes listen. */
const loopbackEngine = (network: NetworkPolicy = { allowPrivateNetwork: true }) =>
  createEngine({ services: testServices({ network }) });

function callChain(configuration: Record<string, unknown>) {
  return chain('c1', [{ id: 'call', type: 'restApiCall', configuration }], [], {
    configuration: { vars: { version: 'v2' } },
  });
}

test('restApiCall posts the data to a templated URL and makes the response the data', async () => {
  const engine = loopbackEngine();
  await engine.load(
    callChain({
      restEndpointUrlPattern: `${base}/\${vars.version}/users/\${metadata.userId}?name=\${msg.name}`,
      headers: { 'x-trace': '${metadata.trace}' },
    }),
  );
  const result = await engine.execute(
    'c1',
    newMessage({ name: 'ada' }, { metadata: { userId: '7', trace: 't-1' } }),
  );
  assert.equal(result.outcome, 'success');
  const reply = result.results[0];
  assert.deepEqual(JSON.parse(reply?.data ?? ''), { echoed: '{"name":"ada"}', url: '/v2/users/7?name=ada' });
  assert.equal(reply?.dataType, 'JSON');
  assert.equal(reply?.metadata['statusCode'], '200');
  assert.equal(reply?.metadata['status'], '200 OK');
  const seen = requests.at(-1);
  assert.equal(seen?.method, 'POST');
  assert.equal(seen?.headers['x-trace'], 't-1');
  assert.equal(seen?.headers['content-type'], 'application/json');
  await engine.close();
});

test('restApiCall GET sends no body', async () => {
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/get`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage({ ignored: true }));
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { echoed: '', url: '/get' });
  assert.equal(requests.at(-1)?.method, 'GET');
  await engine.close();
});

test('restApiCall takes Failure on a non-200 answer: the data stays the request, errorBody the answer', async () => {
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/missing` }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'not here');
  const reply = result.results[0];
  assert.equal(reply?.metadata['statusCode'], '404');
  assert.equal(reply?.metadata['errorBody'], 'not here');
  assert.equal(reply?.data, 'x');
  await engine.close();
});

test('only 200 is Success, as RuleGo: a 201 answer takes Failure', async () => {
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/created` }));
  const result = await engine.execute('c1', newMessage({ a: 1 }));
  assert.equal(result.outcome, 'failure');
  const reply = result.results[0];
  assert.equal(reply?.metadata['statusCode'], '201');
  assert.equal(reply?.metadata['errorBody'], '{"id":1}');
  assert.deepEqual(JSON.parse(reply?.data ?? ''), { a: 1 });
  await engine.close();
});

test('restApiCall sends the body template, and takes the method in any case', async () => {
  const engine = loopbackEngine();
  await engine.load(
    callChain({
      restEndpointUrlPattern: `${base}/put`,
      requestMethod: 'put',
      body: '{"user":"${msg.name}","v":"${vars.version}","m":"${metadata.k}"}',
    }),
  );
  const result = await engine.execute('c1', newMessage({ name: 'ada' }, { metadata: { k: 'q' } }));
  assert.equal(result.outcome, 'success');
  const seen = requests.at(-1);
  assert.equal(seen?.method, 'PUT');
  assert.deepEqual(JSON.parse(seen?.body ?? ''), { user: 'ada', v: 'v2', m: 'q' });
  await engine.close();
});

test('restApiCall fails on an answer over 10 MiB instead of buffering it', async () => {
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/huge`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'the response is larger than 10485760 bytes');
  await engine.close();
});

test('restApiCall fails with a clear error when the endpoint is too slow', async () => {
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/slow`, readTimeoutMs: 50 }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'request timed out after 50 ms');
  await engine.close();
});

test('restApiCall fails when nothing listens', async () => {
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');
  const engine = loopbackEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `http://127.0.0.1:${port}/` }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.match(result.error ?? '', /^request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  // As RuleGo: the transport error is also in errorBody, and the data stays the request.
  assert.equal(result.results[0]?.metadata['errorBody'], result.error);
  assert.equal(result.results[0]?.data, 'x');
  await engine.close();
});

/** A server on 127.0.0.1 that counts what reaches it; `handle` answers, by default 200 `{}`. */
async function countingServer(
  t: TestContext,
  handle?: (request: IncomingMessage, response: ServerResponse) => void,
) {
  const seen: Seen[] = [];
  const counting = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (handle) handle(request, response);
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  counting.listen(0, '127.0.0.1');
  await once(counting, 'listening');
  t.after(() => {
    counting.closeAllConnections();
    counting.close();
  });
  const { port } = counting.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}`, seen };
}

/** An engine closed when the test ends, however it ends. */
function engineFor(t: TestContext, network?: NetworkPolicy) {
  const engine = network ? loopbackEngine(network) : createEngine();
  t.after(() => engine.close());
  return engine;
}

const REFUSED = /private, loopback and link-local addresses are not allowed$/;

test('by default restApiCall refuses a loopback address: a Failure naming it, and no request is sent', async (t) => {
  const victim = await countingServer(t);
  const engine = engineFor(t);
  await engine.load(callChain({ restEndpointUrlPattern: `${victim.url}/admin`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(
    result.error,
    'refusing to call 127.0.0.1: private, loopback and link-local addresses are not allowed',
  );
  assert.equal(victim.seen.length, 0);
});

test('by default restApiCall refuses a name that resolves to loopback, and a URL taken from the message', async (t) => {
  const victim = await countingServer(t);
  const engine = engineFor(t);
  await engine.load(callChain({ restEndpointUrlPattern: '${msg.target}', requestMethod: 'GET' }));
  for (const target of [`http://localhost:${victim.port}/`, `http://[::ffff:127.0.0.1]:${victim.port}/`]) {
    const result = await engine.execute('c1', newMessage({ target }));
    assert.equal(result.outcome, 'failure', target);
    assert.match(result.error ?? '', /^refusing to call /);
    assert.match(result.error ?? '', REFUSED);
  }
  assert.equal(victim.seen.length, 0);
});

test('a redirect from an allowed host to a loopback address is refused at that hop; the target sees nothing', async (t) => {
  const victim = await countingServer(t);
  const redirector = await countingServer(t, (_request, response) =>
    response.writeHead(302, { location: `${victim.url}/latest/meta-data` }).end(),
  );
  const engine = engineFor(t, { allowedHosts: [`127.0.0.1:${redirector.port}`] });
  await engine.load(callChain({ restEndpointUrlPattern: `${redirector.url}/go`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(
    result.error,
    'refusing to follow a redirect to 127.0.0.1: private, loopback and link-local addresses are not allowed',
  );
  assert.equal(redirector.seen.length, 1, 'the allowed host was called');
  assert.equal(victim.seen.length, 0, 'the redirect target was not');
});

test('an allowed host is reached whatever it resolves to; other ports of it are not', async (t) => {
  const allowed = await countingServer(t);
  const other = await countingServer(t);
  const engine = engineFor(t, { allowedHosts: [`127.0.0.1:${allowed.port}`] });
  await engine.load(callChain({ restEndpointUrlPattern: '${msg.target}', requestMethod: 'GET' }));
  const reached = await engine.execute('c1', newMessage({ target: `${allowed.url}/ok` }));
  assert.equal(reached.outcome, 'success');
  const refused = await engine.execute('c1', newMessage({ target: `${other.url}/no` }));
  assert.match(refused.error ?? '', REFUSED);
  assert.deepEqual([allowed.seen.length, other.seen.length], [1, 0]);
});

test('redirects are followed as fetch does: a 302 turns a POST into a GET, another origin gets no credentials', async (t) => {
  const target = await countingServer(t);
  const redirector = await countingServer(t, (_request, response) =>
    response.writeHead(302, { location: `${target.url}/landed` }).end(),
  );
  const engine = engineFor(t, { allowPrivateNetwork: true });
  await engine.load(
    callChain({
      restEndpointUrlPattern: `${redirector.url}/start`,
      headers: { authorization: 'Bearer secret', 'x-trace': 't-1' },
    }),
  );
  const result = await engine.execute('c1', newMessage({ a: 1 }));
  assert.equal(result.outcome, 'success');
  assert.equal(redirector.seen[0]?.method, 'POST');
  assert.equal(redirector.seen[0]?.headers.authorization, 'Bearer secret');
  const landed = target.seen[0];
  assert.deepEqual([landed?.method, landed?.url, landed?.body], ['GET', '/landed', '']);
  assert.equal(landed?.headers.authorization, undefined);
  assert.equal(landed?.headers['content-type'], undefined);
  assert.equal(landed?.headers['x-trace'], 't-1');
});

test('a redirect loop ends after 5 hops with a clear Failure', async (t) => {
  const loop = await countingServer(t, (request, response) =>
    response.writeHead(307, { location: `${request.url ?? '/'}x` }).end(),
  );
  const engine = engineFor(t, { allowPrivateNetwork: true });
  await engine.load(callChain({ restEndpointUrlPattern: `${loop.url}/`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.error, 'too many redirects (more than 5)');
  assert.equal(loop.seen.length, 6);
});
