import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { newMessage } from '../../src/engine/message.ts';
import { chain, createEngine } from './helpers.ts';

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

function callChain(configuration: Record<string, unknown>) {
  return chain('c1', [{ id: 'call', type: 'restApiCall', configuration }], [], {
    configuration: { vars: { version: 'v2' } },
  });
}

test('restApiCall posts the data to a templated URL and makes the response the data', async () => {
  const engine = createEngine();
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
  const engine = createEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/get`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage({ ignored: true }));
  assert.deepEqual(JSON.parse(result.results[0]?.data ?? ''), { echoed: '', url: '/get' });
  assert.equal(requests.at(-1)?.method, 'GET');
  await engine.close();
});

test('restApiCall takes Failure on a non-2xx answer, with errorMsg and status', async () => {
  const engine = createEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/missing` }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'HTTP 404: not here');
  assert.equal(result.results[0]?.metadata['statusCode'], '404');
  assert.equal(result.results[0]?.data, 'not here');
  await engine.close();
});

test('restApiCall fails on an answer over 10 MiB instead of buffering it', async () => {
  const engine = createEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `${base}/huge`, requestMethod: 'GET' }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.equal(result.error, 'the response is larger than 10485760 bytes');
  await engine.close();
});

test('restApiCall fails with a clear error when the endpoint is too slow', async () => {
  const engine = createEngine();
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
  const engine = createEngine();
  await engine.load(callChain({ restEndpointUrlPattern: `http://127.0.0.1:${port}/` }));
  const result = await engine.execute('c1', newMessage('x'));
  assert.equal(result.outcome, 'failure');
  assert.match(result.error ?? '', /^request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  await engine.close();
});
