// A chain's own endpoints (RuleGo's metadata.endpoints): an http route under /api/v1/endpoints
// answered to curl on a real listening server, behind auth unless it opts out, hot-reloaded and
// stopped with the chain; a schedule endpoint running the chain on its cron.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

const run = promisify(execFile);

async function curl(args: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', ...args]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

function greeter(id: string, greeting: string, auth?: boolean) {
  const definition = chainDefinition(id, [
    {
      id: 't',
      type: 'jsTransform',
      configuration: {
        jsScript: `return {msg: {greeting: '${greeting} ' + metadata.name, lang: metadata.lang, sent: msg}, metadata, msgType};`,
      },
    },
  ]);
  return {
    ...definition,
    metadata: {
      ...definition.metadata,
      endpoints: [
        {
          id: 'e1',
          type: 'endpoint/http',
          configuration: auth === undefined ? {} : { auth },
          routers: [
            {
              id: 'r1',
              params: ['POST'],
              from: { path: `/${id}/hello/:name` },
              to: { path: id, wait: true },
            },
          ],
        },
      ],
    },
  };
}

describe('chain endpoints', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp({
      config: {
        security: { requireAuth: true, users: { admin: 'a-long-test-password' } },
        engine: { rest_allowed_hosts: ['127.0.0.1'] },
      },
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  const put = async (definition: unknown, method: 'POST' | 'PUT' = 'POST', id = '') => {
    const token = await login();
    const response = await t.app.inject({
      method,
      url: `/api/v1/rules${id ? `/${id}` : ''}`,
      payload: definition as Record<string, unknown>,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(response.statusCode < 300, response.body);
  };
  let token = '';
  const login = async () => {
    if (token) return token;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'a-long-test-password' },
    });
    token = (response.json() as { token: string }).token;
    assert.ok(token, response.body);
    return token;
  };

  it('an http endpoint that opts out of auth answers curl with the run result; path and query are metadata', async () => {
    await put(greeter('open', 'Hello', false));
    const answer = await curl([
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-d',
      '{"a":1}',
      `${base}/api/v1/endpoints/open/hello/ada?lang=en`,
    ]);
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { greeting: 'Hello ada', lang: 'en', sent: { a: 1 } });
    // No endpoint for GET: a stranger learns nothing (401), a signed-in user gets the 404.
    const stranger = await curl([`${base}/api/v1/endpoints/open/hello/ada`]);
    assert.equal(stranger.status, 401);
    const wrongMethod = await curl([
      '-H',
      `authorization: Bearer ${await login()}`,
      `${base}/api/v1/endpoints/open/hello/ada`,
    ]);
    assert.equal(wrongMethod.status, 404);
    assert.match(wrongMethod.body, /"error":"no endpoint serves GET/);
  });

  it('an endpoint behind auth refuses a request without a token and answers one with it', async () => {
    await put(greeter('closed', 'Hi'));
    const refused = await curl(['-X', 'POST', `${base}/api/v1/endpoints/closed/hello/bob`]);
    assert.equal(refused.status, 401);
    const answer = await curl([
      '-X',
      'POST',
      '-H',
      `authorization: Bearer ${await login()}`,
      `${base}/api/v1/endpoints/closed/hello/bob`,
    ]);
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { greeting: string }).greeting, 'Hi bob');
  });

  it('is hot-reloaded with its chain and gone when the chain is deleted', async () => {
    await put(greeter('reload', 'Hello', false));
    await put(greeter('reload', 'Bonjour', false), 'PUT', 'reload');
    const answer = await curl(['-X', 'POST', `${base}/api/v1/endpoints/reload/hello/zoe`]);
    assert.equal((JSON.parse(answer.body) as { greeting: string }).greeting, 'Bonjour zoe');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/rules/reload',
      headers: { authorization: `Bearer ${await login()}` },
    });
    assert.ok(removed.statusCode < 300, removed.body);
    const gone = await curl([
      '-X',
      'POST',
      '-H',
      `authorization: Bearer ${await login()}`,
      `${base}/api/v1/endpoints/reload/hello/zoe`,
    ]);
    assert.equal(gone.status, 404);
  });

  it('a schedule endpoint runs its chain on the cron (every second) until the chain goes', async () => {
    const definition = chainDefinition('ticker', [
      {
        id: 'set',
        type: 'cacheSet',
        configuration: { items: [{ level: 'global', key: 'tick:${ts}', value: 'x' }] },
      },
    ]);
    await put({
      ...definition,
      metadata: {
        ...definition.metadata,
        endpoints: [
          {
            id: 's1',
            type: 'schedule',
            routers: [{ from: { path: '* * * * * *' }, to: { path: 'ticker' } }],
          },
        ],
      },
    });
    const reader = chainDefinition('tickReader', [
      {
        id: 'get',
        type: 'cacheGet',
        configuration: { keys: [{ level: 'global', key: 'tick:*' }], outputMode: 2 },
      },
    ]);
    await put(reader);
    const deadline = Date.now() + 5000;
    let ticks = 0;
    while (ticks < 2 && Date.now() < deadline) {
      const read = await t.app.inject({
        method: 'POST',
        url: '/api/v1/rules/tickReader/execute',
        payload: {},
        headers: { authorization: `Bearer ${await login()}` },
      });
      ticks = read.statusCode === 200 ? Object.keys(read.json() as object).length : 0;
      if (ticks < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(ticks >= 2, `ticks ${ticks}`);
  });

  it('an mqtt endpoint runs its chain for each message on its topic', async () => {
    const topic = `endpoints/test/${Date.now()}`;
    const definition = chainDefinition('mqttIn', [
      {
        id: 'set',
        type: 'cacheSet',
        configuration: { items: [{ level: 'global', key: 'mqtt:last', value: '${msg.v}' }] },
      },
    ]);
    await put({
      ...definition,
      metadata: {
        ...definition.metadata,
        endpoints: [
          {
            id: 'm1',
            type: 'endpoint/mqtt',
            configuration: { server: '127.0.0.1:1883' },
            routers: [{ from: { path: topic }, to: { path: 'mqttIn' } }],
          },
        ],
      },
    });
    await put(
      chainDefinition('mqttReader', [
        {
          id: 'get',
          type: 'cacheGet',
          configuration: { keys: [{ level: 'global', key: 'mqtt:last' }], outputMode: 2 },
        },
      ]),
    );
    const publisher = await mqtt.connectAsync('mqtt://127.0.0.1:1883');
    try {
      const deadline = Date.now() + 5000;
      let value: unknown;
      // The subscription starts in the background: publish until a message has gone through.
      while (value !== 7 && Date.now() < deadline) {
        await publisher.publishAsync(topic, JSON.stringify({ v: 7 }));
        const read = await t.app.inject({
          method: 'POST',
          url: '/api/v1/rules/mqttReader/execute',
          payload: {},
          headers: { authorization: `Bearer ${await login()}` },
        });
        value = read.statusCode === 200 ? (read.json() as Record<string, unknown>)['mqtt:last'] : undefined;
        if (value !== 7) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(value, 7);
    } finally {
      await publisher.endAsync();
    }
  });

  it('an unknown endpoint type is refused at load with its path', async () => {
    const definition = chainDefinition('badEndpoint', [{ id: 'c', type: 'comment' }]);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ...definition,
        metadata: { ...definition.metadata, endpoints: [{ id: 'x', type: 'endpoint/kafka' }] },
      },
      headers: { authorization: `Bearer ${await login()}` },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /metadata\.endpoints\[0\]\.type: must be http, ws, schedule or mqtt/);
  });
});
