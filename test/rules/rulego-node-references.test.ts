// RuleGo's node output references (`${<nodeId>.msg.x}`, `${<nodeId>.metadata.x}`): every node whose
// configuration RuleGo runs through its templates reads the last output of an earlier node of the
// run; a node the run has not reached yet renders as RuleGo renders it.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import type { NodeSpec } from '../fakes/builders.ts';
import { outData, runLogged } from './rulego-harness.ts';

/** A jsTransform `first` that sets msg.name and metadata.wait, as RuleGo's tests set up node1. */
const first: NodeSpec = {
  id: 'first',
  type: 'jsTransform',
  configuration: {
    jsScript:
      "metadata.wait = '30'; metadata.city = 'Oslo'; return {msg: {name: 'aa', temperature: 41}, metadata, msgType};",
  },
};

describe('node output references', () => {
  let t: TestApp;
  let server: Server;
  let base = '';
  const seen: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ url: request.url ?? '', headers: request.headers, body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ config: { engine: { rest_allow_private_network: true } } });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('restApiCall renders url, headers and body with an earlier node output', async () => {
    seen.length = 0;
    const run = await runLogged(
      t,
      [
        first,
        {
          id: 'other',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {n: 1}, metadata, msgType};' },
        },
        {
          id: 'call',
          type: 'restApiCall',
          configuration: {
            restEndpointUrlPattern: `${base}/city/\${first.metadata.city}?n=\${msg.n}`,
            requestMethod: 'POST',
            headers: { 'x-name': '${first.msg.name}' },
            body: '{"temperature": ${first.msg.temperature}, "n": ${msg.n}}',
          },
        },
      ],
      [
        ['first', 'Success', 'other'],
        ['other', 'Success', 'call'],
      ],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    assert.deepEqual(run.relations(), [
      ['first', ['Success']],
      ['other', ['Success']],
      ['call', ['Success']],
    ]);
    assert.equal(seen[0]?.url, '/city/Oslo?n=1');
    assert.equal(seen[0]?.headers['x-name'], 'aa');
    assert.deepEqual(JSON.parse(seen[0]?.body ?? ''), { temperature: 41, n: 1 });
  });

  it('a restApiCall template through a node the run has not reached renders as "", as RuleGo', async () => {
    seen.length = 0;
    const run = await runLogged(
      t,
      [
        {
          id: 'call',
          type: 'restApiCall',
          configuration: {
            restEndpointUrlPattern: `${base}/echo`,
            requestMethod: 'POST',
            body: 'name=${later.msg.name}',
          },
        },
        { ...first, id: 'later' },
      ],
      [['call', 'Success', 'later']],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    assert.equal(seen[0]?.body, '');
  });

  it('delay waits for the milliseconds an earlier node put in its metadata', async () => {
    const run = await runLogged(
      t,
      [
        first,
        { id: 'reset', type: 'metadataTransform', configuration: { mapping: { wait: '"x"' } } },
        { id: 'wait', type: 'delay', configuration: { delayMs: '${first.metadata.wait}' } },
      ],
      [
        ['first', 'Success', 'reset'],
        ['reset', 'Success', 'wait'],
      ],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    const wait = run.node('wait');
    assert.deepEqual(wait.relationTypes, ['Success']);
    assert.ok(wait.endTs - wait.startTs >= 25, `waited ${wait.endTs - wait.startTs} ms`);
  });

  it('delay through a node not yet run takes Failure with RuleGo error text', async () => {
    const run = await runLogged(
      t,
      [
        { id: 'wait', type: 'delay', configuration: { delayMs: '${later.metadata.wait}' } },
        { ...first, id: 'later' },
      ],
      [['wait', 'Success', 'later']],
      {},
    );
    assert.equal(run.response.statusCode, 400, run.response.body);
    assert.equal(
      run.node('wait').err,
      `failed to parse delay time from template result '': strconv.ParseInt: parsing "": invalid syntax`,
    );
  });

  it('text/template reads .<nodeId>.msg and .<nodeId>.metadata; through a node not run it fails', async () => {
    const template = 'name={{ .first.msg.name }} city={{ .first.metadata.city }} now={{ .msg.n }}';
    const run = await runLogged(
      t,
      [
        first,
        {
          id: 'other',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {n: 2}, metadata, msgType};' },
        },
        { id: 'text', type: 'text/template', configuration: { template } },
      ],
      [
        ['first', 'Success', 'other'],
        ['other', 'Success', 'text'],
      ],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    // As RuleGo: the rendered text is the data, the data type stays the message's.
    const out = run.node('text').outMsgs[0]?.msg;
    assert.equal(out?.data, 'name=aa city=Oslo now=2');
    assert.equal(out?.dataType, 'JSON');

    const missing = await runLogged(
      t,
      [
        { id: 'text', type: 'text/template', configuration: { template: '{{ .later.msg.name }}' } },
        { ...first, id: 'later' },
      ],
      [['text', 'Success', 'later']],
      {},
    );
    assert.deepEqual(missing.node('text').relationTypes, ['Failure']);
    assert.match(missing.node('text').err ?? '', /nil pointer evaluating interface \{\}\.msg/);
  });

  it('switch, exprFilter and for read earlier outputs in their expressions', async () => {
    const run = await runLogged(
      t,
      [
        first,
        {
          id: 'blank',
          type: 'jsTransform',
          configuration: { jsScript: 'return {msg: {}, metadata: {}, msgType};' },
        },
        {
          id: 'route',
          type: 'switch',
          configuration: {
            cases: [{ case: 'first.msg.temperature > 40 && first.metadata.city == "Oslo"', then: 'Hot' }],
          },
        },
        { id: 'check', type: 'exprFilter', configuration: { expr: '${first.msg.name} == "aa"' } },
        { id: 'end', type: 'end' },
      ],
      [
        ['first', 'Success', 'blank'],
        ['blank', 'Success', 'route'],
        ['route', 'Hot', 'check'],
        ['check', 'True', 'end'],
      ],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    assert.deepEqual(run.relations(), [
      ['first', ['Success']],
      ['blank', ['Success']],
      ['route', ['Hot']],
      ['check', ['True']],
      ['end', ['Success']],
    ]);
  });

  it('a for body reads the outputs of the nodes before the loop', async () => {
    const run = await runLogged(
      t,
      [
        first,
        { id: 'loop', type: 'for', configuration: { range: '1..2', do: 'body', mode: 1 } },
        { id: 'body', type: 'exprTransform', configuration: { expr: 'first.msg.name + metadata._loopItem' } },
      ],
      [['first', 'Success', 'loop']],
      {},
    );
    assert.equal(run.response.statusCode, 200, run.response.body);
    assert.deepEqual(outData(run.node('loop')), ['aa1', 'aa2']);
  });
});
