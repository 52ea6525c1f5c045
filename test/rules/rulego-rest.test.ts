// Facts from RuleGo's components/external rest_api_call_node_test through the REST API with
// debugMode on: only 200 is Success; any other status is a Failure with the answer as the error,
// statusCode and status in metadata, and the request kept as the data. Served by a loopback fake.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { runLogged } from './rulego-harness.ts';

describe('RuleGo restApiCall', () => {
  let t: TestApp;
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer((request, response) => {
      if (request.method !== 'POST') {
        response.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ config: { engine: { rest_allow_private_network: true } } });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const call = (requestMethod: string) =>
    runLogged(
      t,
      [
        {
          id: 'rest',
          type: 'restApiCall',
          configuration: { restEndpointUrlPattern: `${base}/api`, requestMethod },
        },
      ],
      [],
      { temperature: 41 },
      { query: { productType: 'test' } },
    );

  it('200 is Success: the answer is the data, statusCode "200" in metadata', async () => {
    const log = (await call('post')).node('rest');
    assert.deepEqual(log.relationTypes, ['Success']);
    const message = log.outMsgs[0]?.msg;
    assert.equal(message?.data, '{"ok":true}');
    assert.equal(message?.metadata['statusCode'], '200');
    assert.equal(message?.metadata['status'], '200 OK');
    assert.equal(message?.metadata['productType'], 'test');
  });

  it('405 is a Failure: the error is the answer, in errorBody too; the data stays the request', async () => {
    const log = (await call('GET')).node('rest');
    assert.deepEqual(log.relationTypes, ['Failure']);
    assert.equal(log.err, 'method not allowed');
    const message = log.outMsgs[0]?.msg;
    assert.equal(message?.data, '{"temperature":41}');
    assert.equal(message?.metadata['statusCode'], '405');
    assert.equal(message?.metadata['status'], '405 Method Not Allowed');
    assert.equal(message?.metadata['errorBody'], 'method not allowed');
  });
});
