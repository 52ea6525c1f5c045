// GET /api/v1/models and /models/{id}: the loaded agents in OpenAI's model list shape, behind the
// chat endpoint's credentials.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { createTestApp, TEST_JWT_SECRET, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';

const ACCOUNT_KEY = 'sk-app1-models-key-0000';

describe('OpenAI models endpoint', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      listen: true,
      config: {
        security: {
          requireAuth: true,
          jwtSecret: TEST_JWT_SECRET,
          users: { admin: 'changeme:sk-admin-models-key-00' },
        },
        channels: { api: { enabled: true, accounts: { app1: { api_key: ACCOUNT_KEY, enabled: true } } } },
      },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      headers: { authorization: 'Bearer sk-admin-models-key-00' },
      payload: agentDefinition('helper', { tools: [] }),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => t.close());

  it('openai models.list() lists every loaded agent as a model; retrieve() finds one', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: ACCOUNT_KEY, maxRetries: 0 });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    assert.deepEqual(models.map((model) => model.id).sort(), ['helper', 'main']);
    for (const model of models) {
      assert.equal(model.object, 'model');
      assert.equal(model.owned_by, 'agent-service');
      assert.ok(Number.isInteger(model.created) && model.created > 1_600_000_000);
    }
    const helper = await client.models.retrieve('helper');
    assert.equal(helper.id, 'helper');
  });

  it("the list has exactly OpenAI's shape, and a user key opens it too", async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/models',
      headers: { authorization: 'Bearer sk-admin-models-key-00' },
    });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'object']);
    assert.equal(body.object, 'list');
    assert.deepEqual(Object.keys(body.data[0]).sort(), ['created', 'id', 'object', 'owned_by']);
  });

  it('an unknown model id is a 404; no credentials is a 401', async () => {
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/v1/models/nobody',
      headers: { authorization: `Bearer ${ACCOUNT_KEY}` },
    });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'model "nobody" does not exist: no loaded agent has that id' });
    const odd = await t.app.inject({
      method: 'GET',
      url: '/api/v1/models/a%20b',
      headers: { authorization: `Bearer ${ACCOUNT_KEY}` },
    });
    assert.equal(odd.statusCode, 404);
    const client = new OpenAI({ baseURL: `${t.url}/api/v1`, apiKey: ACCOUNT_KEY, maxRetries: 0 });
    await assert.rejects(client.models.retrieve('nobody'), OpenAI.NotFoundError);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/models' });
    assert.equal(anonymous.statusCode, 401);
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/models',
      headers: { authorization: 'Bearer wrong' },
    });
    assert.equal(bad.statusCode, 401);
  });

  it('the configuration models routes are untouched, and both appear in the OpenAPI document', async () => {
    const config = await t.app.inject({
      method: 'GET',
      url: '/api/v1/config/models/providers',
      headers: { authorization: 'Bearer sk-admin-models-key-00' },
    });
    assert.equal(config.statusCode, 200);
    const openapi = await t.app.inject({
      method: 'GET',
      url: '/api/v1/openapi.json',
      headers: { authorization: 'Bearer sk-admin-models-key-00' },
    });
    const paths = Object.keys(openapi.json().paths);
    for (const path of ['/api/v1/models', '/api/v1/models/{modelId}', '/api/v1/agents/{agentId}/agui'])
      assert.ok(paths.includes(path), `${path} is documented`);
  });
});
