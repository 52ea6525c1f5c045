// Every registered route, sent malformed input of every kind, answers with a client error and a
// JSON {error} body: never a 500, never a hang, and the server keeps serving afterwards.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

const PARAM_VALUES = ['x', '..%2F..%2Fetc%2Fpasswd', '%00', 'a'.repeat(300), '%E2%82', 'main'];
const BODIES: Array<{ label: string; payload: string; type: string }> = [
  { label: 'malformed JSON', payload: '{"a":', type: 'application/json' },
  { label: 'a JSON array', payload: '[1,2,3]', type: 'application/json' },
  { label: 'a JSON string', payload: '"text"', type: 'application/json' },
  { label: 'null', payload: 'null', type: 'application/json' },
  {
    label: 'wrong types',
    payload: '{"id":5,"name":[],"model":{},"messages":"hi","scope":7}',
    type: 'application/json',
  },
  { label: 'deep nesting', payload: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: 'application/json' },
  { label: 'deep objects', payload: `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`, type: 'application/json' },
  {
    label: 'deep additionalInfo',
    payload: `{"ruleChain":{"id":"deep","additionalInfo":${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}}}`,
    type: 'application/json',
  },
  {
    label: 'prototype keys',
    payload: '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}',
    type: 'application/json',
  },
  { label: 'plain text', payload: 'hello', type: 'text/plain' },
];
const QUERIES = [
  '?page=-1&size=100000',
  '?page=abc',
  '?scope=nope&agentId=..%2F',
  '?chainId=%00&loaded=maybe',
];

describe('hostile input on every route', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('never answers 500 and always explains a refusal in JSON', async () => {
    const routes = t.app.registeredRoutes.filter((route) => route.url.startsWith('/api/v1/'));
    assert.ok(routes.length > 40, `only ${routes.length} API routes`);
    const problems: string[] = [];
    let requests = 0;
    for (const route of routes) {
      const urls = PARAM_VALUES.map((value) => route.url.replace(/:[A-Za-z]+/g, value));
      const attempts: Array<{ url: string; payload?: string; type?: string }> = [];
      for (const url of urls) attempts.push({ url });
      for (const query of QUERIES) attempts.push({ url: `${urls[0]}${query}` });
      if (route.method !== 'GET') {
        for (const body of BODIES)
          attempts.push({ url: urls[0] as string, payload: body.payload, type: body.type });
      }
      for (const attempt of attempts) {
        requests += 1;
        const response = await t.app.inject({
          method: route.method as 'POST',
          url: attempt.url,
          ...(attempt.payload === undefined
            ? {}
            : { payload: attempt.payload, headers: { 'content-type': attempt.type as string } }),
        });
        const where = `${route.method} ${attempt.url.slice(0, 80)} ${attempt.payload?.slice(0, 30) ?? ''}`;
        if (response.statusCode >= 500) {
          problems.push(`${where}: ${response.statusCode} ${response.body.slice(0, 120)}`);
          continue;
        }
        if (response.statusCode >= 400) {
          let body: unknown;
          try {
            body = response.json();
          } catch {
            problems.push(`${where}: ${response.statusCode} without a JSON body`);
            continue;
          }
          const error = (body as { error?: unknown }).error;
          if (typeof error !== 'string' || error === '') problems.push(`${where}: no error text`);
          else if (Object.keys(body as object).length !== 1)
            problems.push(`${where}: not {error}: ${response.body}`);
        }
      }
    }
    assert.ok(requests > 1000, `only ${requests} requests`);
    assert.deepEqual(problems, [], `${problems.length} of ${requests} requests misbehaved`);
    assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).body, 'OK');
    const agents = await t.app.inject({ method: 'GET', url: '/api/v1/agents' });
    assert.equal(agents.statusCode, 200);
    assert.ok(
      (agents.json() as { data: Array<{ ruleChain: { id: string } }> }).data.some(
        (a) => a.ruleChain.id === 'main',
      ),
    );
  });

  it('a body nested past 64 levels is a 400 that says so', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: `${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: 'request body is nested too deeply (more than 64 levels)' });
  });

  it('a path that is not valid percent-encoding is a 400 {error}', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/agents/%E2%82' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: 'the URL is not validly encoded' });
  });
});

describe('prototype-named ids on every route', () => {
  const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'];
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { security: { loginRateLimit: 100000 } } });
  });
  after(() => t.close());

  it('answer a client error, write nothing and make up nothing', async () => {
    const before = await readFile(t.configPath, 'utf8');
    const routes = t.app.registeredRoutes.filter((route) => route.url.startsWith('/api/v1/'));
    const problems: string[] = [];
    for (const route of routes) {
      for (const name of NAMES) {
        const url = route.url.replace(/:[A-Za-z]+/g, name);
        const bodies =
          route.method === 'GET'
            ? [undefined]
            : [
                { id: name, base_url: 'http://127.0.0.1:9/v1', name },
                { id: name, app_secret: 'secret-value-123456', api_key: 'sk-0123456789abcdef' },
                { username: name, password: 'x', agentId: name, sessionKey: name, target: name },
                chainDefinition(name, []),
                { models: { providers: { [name]: { base_url: 'http://127.0.0.1:9/v1' } } } },
              ];
        for (const payload of bodies) {
          const response = await t.app.inject({
            method: route.method as 'POST',
            url,
            ...(payload === undefined ? {} : { payload }),
          });
          if (response.statusCode >= 500)
            problems.push(
              `${route.method} ${url} ${JSON.stringify(payload)}: ${response.statusCode} ${response.body}`,
            );
          else if (
            response.statusCode < 300 &&
            route.method !== 'GET' &&
            !/clear|execute|completions|reload|logs\/runs/.test(url)
          )
            problems.push(
              `${route.method} ${url} ${JSON.stringify(payload)}: accepted ${response.statusCode}`,
            );
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.equal(await readFile(t.configPath, 'utf8'), before, 'config.yaml is unchanged');
    const providers = (await t.app.inject({ method: 'GET', url: '/api/v1/config/models/providers' })).json();
    assert.deepEqual(providers, []);
    const channels = (await t.app.inject({ method: 'GET', url: '/api/v1/channels' })).json();
    for (const platform of Object.values(channels.platforms) as Array<{ accounts: object }>)
      assert.deepEqual(Object.keys(platform.accounts), []);
  });
});
