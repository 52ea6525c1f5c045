// Hostile scripts end in a clear Failure with the server unharmed; reloads under load lose nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

function scriptChain(id: string, jsScript: string) {
  return {
    ruleChain: { id, name: id },
    metadata: {
      nodes: [
        { id: 'script', type: 'jsTransform', configuration: { jsScript } },
        { id: 'end', type: 'end' },
      ],
      connections: [{ fromId: 'script', toId: 'end', type: 'Success' }],
    },
  };
}

describe('hostile scripts over REST', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { engine: { script_timeout_ms: 300, script_memory_mb: 16 } } });
  });
  after(() => t.close());

  const cases: Array<[string, string, RegExp]> = [
    ['loop', 'while (true) {}', /timed out/],
    ['alloc', 'let a = []; while (true) a.push(new Array(1e6).fill(1));', /memory/],
    ['process', 'process.exit(1); return {msg: msg};', /'process' is not defined/],
    ['require', 'require("fs"); return {msg: msg};', /'require' is not defined/],
    ['fetch', 'fetch("http://127.0.0.1:1/"); return {msg: msg};', /'fetch' is not defined/],
    [
      'escape',
      'return {msg: globalThis.constructor.constructor("return process")()};',
      /'process' is not defined/,
    ],
  ];

  for (const [id, script, expected] of cases) {
    it(`${id}: a 400 Failure naming the reason, and the server keeps serving`, async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/rules',
        payload: scriptChain(id, script),
      });
      assert.equal(created.statusCode, 201, created.body);
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/v1/rules/${id}/execute`,
        payload: { x: 1 },
      });
      assert.equal(response.statusCode, 400);
      assert.match(response.json().error, expected);
      const again = await t.app.inject({
        method: 'POST',
        url: `/api/v1/rules/${id}/execute`,
        payload: { x: 1 },
      });
      assert.equal(again.statusCode, 400, 'the same node fails the same way on the next message');
      assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).body, 'OK');
    });
  }

  it('a healthy chain still answers after every hostile one', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: scriptChain('fine', 'msg.ok = true; return {msg: msg, metadata: metadata, msgType: msgType};'),
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules/fine/execute',
      payload: { x: 1 },
    });
    assert.deepEqual(response.json(), { x: 1, ok: true });
  });
});

describe('reload under load', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('PUT and reload while 300 executes are in flight lose no request', async () => {
    const version = (n: number) =>
      scriptChain('hot', `msg.version = ${n}; return {msg: msg, metadata: metadata, msgType: msgType};`);
    await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: version(0) });
    const executes = Array.from({ length: 300 }, () =>
      t.app.inject({ method: 'POST', url: '/api/v1/rules/hot/execute', payload: { n: 1 } }),
    );
    const reloads = [];
    for (let n = 1; n <= 10; n++) {
      reloads.push(t.app.inject({ method: 'PUT', url: '/api/v1/rules/hot', payload: version(n) }));
      reloads.push(t.app.inject({ method: 'POST', url: '/api/v1/rules/hot/reload' }));
    }
    const results = await Promise.all(executes);
    for (const response of await Promise.all(reloads)) assert.equal(response.statusCode, 200, response.body);
    for (const response of results) {
      assert.equal(response.statusCode, 200, response.body);
      const version = response.json().version;
      assert.ok(Number.isInteger(version) && version >= 0 && version <= 10);
    }
    const last = await t.app.inject({ method: 'POST', url: '/api/v1/rules/hot/execute', payload: {} });
    assert.equal(last.json().version, 10);
  });
});
