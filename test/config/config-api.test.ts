import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const CONFIG_TEXT = `# my server settings
server:
  host: 127.0.0.1 # keep local
  port: 9527

data:
  root_dir: ./data

models:
  default_provider: openai
  providers:
    openai:
      name: OpenAI
      base_url: https://api.example.test/v1
      api_key: \${TEST_PROVIDER_KEY}
      model: gpt-test

security:
  users:
    admin: changeme:sk-secret-admin-key
`;
const env = { TEST_PROVIDER_KEY: 'sk-provider-secret-value' };

describe('configuration API', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('GET /config has exactly the documented shape and no secret', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/config' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    // Every section and key of the file (issue 20.9), secrets shown as set.
    assert.deepEqual(Object.keys(body).sort(), Object.keys(configSchema.shape).sort());
    for (const section of ['agents', 'bindings', 'channels', 'cluster', 'data', 'engine'])
      assert.ok(section in body, section);
    assert.equal(body.server.host, '127.0.0.1');
    assert.equal(body.server.port, 9527);
    assert.equal(body.server.request_timeout_ms, 60_000);
    assert.equal(body.data.root_dir, `${t.dir}/data`);
    assert.equal(body.models.default_provider, 'openai');
    assert.equal(body.models.providers.openai.hasApiKey, true);
    assert.equal(body.models.providers.openai.api_key, true);
    assert.deepEqual(body.security, {
      requireAuth: false,
      users: { admin: true },
      user_access: {},
      jwtExpire: '24h',
      loginRateLimit: 10,
    });
    assert.doesNotMatch(response.body, /sk-provider-secret-value|sk-secret-admin-key|changeme/);
  });

  it('PUT /config deep-merges, keeps comments and ${NAME} references, and says when a restart is needed', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const current = (await t.app.inject({ method: 'GET', url: '/api/v1/config' })).json();
    current.server.port = 9600;
    current.security.requireAuth = true;
    const response = await t.app.inject({ method: 'PUT', url: '/api/v1/config', payload: current });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json().restartRequired, ['server.port']);
    const file = await readFile(t.configPath, 'utf8');
    assert.match(file, /# my server settings/);
    assert.match(file, /host: 127.0.0.1 # keep local/);
    assert.match(file, /port: 9600/);
    assert.match(file, /requireAuth: true/);
    assert.match(file, /api_key: \$\{TEST_PROVIDER_KEY\}/);
    assert.doesNotMatch(file, /sk-provider-secret-value/);
    assert.match(file, /admin: changeme:sk-secret-admin-key/, 'users: {admin: true} kept the stored secret');
    assert.equal(t.store.current.security.requireAuth, true);
  });

  it('PUT /config with an invalid value is a 400 and leaves the file untouched', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const before = await readFile(t.configPath, 'utf8');
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { server: { port: 'high' } },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /server\.port .*expected number/);
    const unknown = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { server: { colour: 'red' } },
    });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error, /server\.colour .*unknown key/);
    const section = await t.app.inject({ method: 'PUT', url: '/api/v1/config', payload: { nonsense: {} } });
    assert.equal(section.statusCode, 400);
    assert.equal(await readFile(t.configPath, 'utf8'), before);
  });

  it('PUT /config sets a user password hashed and removes a user with null', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { security: { users: { ops: 'ops-password-1' } } },
    });
    assert.equal(response.statusCode, 200);
    let file = await readFile(t.configPath, 'utf8');
    assert.match(file, /ops: scrypt\$/);
    assert.doesNotMatch(file, /ops-password-1/);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'ops', password: 'ops-password-1' },
    });
    assert.equal(login.statusCode, 200);
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { security: { users: { ops: null } } },
    });
    file = await readFile(t.configPath, 'utf8');
    assert.doesNotMatch(file, /ops:/);
  });

  it('GET /config/models and the provider list show hasApiKey, never the key', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const summary = await t.app.inject({ method: 'GET', url: '/api/v1/config/models' });
    assert.equal(summary.json().default, 'openai');
    assert.equal(summary.json().model, 'gpt-test');
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/config/models/providers' });
    assert.deepEqual(list.json(), [
      {
        id: 'openai',
        name: 'OpenAI',
        base_url: 'https://api.example.test/v1',
        model: 'gpt-test',
        models: [],
        failover: [],
        hasApiKey: true,
        default: true,
      },
    ]);
    assert.doesNotMatch(list.body + summary.body, /sk-provider-secret-value/);
  });

  it('a password inside a base_url is shown as *** everywhere, and a view written back keeps it', async () => {
    t = await createTestApp({
      configText: CONFIG_TEXT.replace(
        'https://api.example.test/v1',
        'https://proxyuser:url-secret-pw@proxy.example.test/v1',
      ),
      env,
    });
    const views = await Promise.all(
      ['/config', '/config/models', '/config/models/providers'].map((url) =>
        t.app.inject({ method: 'GET', url: `/api/v1${url}` }),
      ),
    );
    for (const view of views) {
      assert.equal(view.statusCode, 200);
      assert.doesNotMatch(view.body, /url-secret-pw|proxyuser/);
      assert.match(view.body, /https:\/\/\*\*\*@proxy\.example\.test\/v1/);
    }
    const shown = (views[0] as { json(): { models: object } }).json();
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { models: shown.models },
    });
    assert.equal(put.statusCode, 200, put.body);
    const patched = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config/models/providers/openai',
      payload: { base_url: 'https://***@proxy.example.test/v1', model: 'gpt-other' },
    });
    assert.ok(patched.statusCode < 300, patched.body);
    assert.match(
      await readFile(t.configPath, 'utf8'),
      /base_url: https:\/\/proxyuser:url-secret-pw@proxy\.example\.test\/v1/,
    );
  });

  it('provider create, duplicate 409, update, key update, unknown 404, delete, default 409', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const url = '/api/v1/config/models/providers';
    const created = await t.app.inject({
      method: 'POST',
      url,
      payload: {
        id: 'local',
        name: 'Local',
        base_url: 'http://127.0.0.1:1234/v1',
        api_key: 'sk-local',
        model: 'm1',
        models: [{ name: 'm1', alias: 'fast' }],
      },
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().hasApiKey, true);
    assert.equal(created.json().api_key, undefined);
    const duplicate = await t.app.inject({
      method: 'POST',
      url,
      payload: { id: 'local', base_url: 'http://127.0.0.1:1/v1' },
    });
    assert.equal(duplicate.statusCode, 409);
    assert.deepEqual(duplicate.json(), { error: 'model provider "local" already exists' });
    const badUrl = await t.app.inject({ method: 'POST', url, payload: { id: 'x', base_url: 'ftp://nope' } });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.json().error, /^body\.base_url: /);
    const updated = await t.app.inject({ method: 'PUT', url: `${url}/local`, payload: { model: 'm2' } });
    assert.equal(updated.json().model, 'm2');
    const key = await t.app.inject({
      method: 'PUT',
      url: `${url}/local/api-key`,
      payload: { apiKey: 'sk-rotated' },
    });
    assert.equal(key.statusCode, 200);
    assert.equal(t.store.current.models.providers['local']?.api_key, 'sk-rotated');
    const unknown = await t.app.inject({ method: 'PUT', url: `${url}/ghost`, payload: { model: 'x' } });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'model provider "ghost" not found' });
    const unknownDelete = await t.app.inject({ method: 'DELETE', url: `${url}/ghost` });
    assert.equal(unknownDelete.statusCode, 404);
    const defaultDelete = await t.app.inject({ method: 'DELETE', url: `${url}/openai` });
    assert.equal(defaultDelete.statusCode, 409);
    assert.match(defaultDelete.json().error, /is the default provider/);
    const deleted = await t.app.inject({ method: 'DELETE', url: `${url}/local` });
    assert.equal(deleted.statusCode, 200);
    assert.equal(t.store.current.models.providers['local'], undefined);
  });

  it('deleting a provider that another one fails over to is a 409', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const url = '/api/v1/config/models/providers';
    await t.app.inject({ method: 'POST', url, payload: { id: 'backup', base_url: 'http://127.0.0.1:9/v1' } });
    const linked = await t.app.inject({
      method: 'PUT',
      url: `${url}/openai`,
      payload: { failover: ['backup'] },
    });
    assert.equal(linked.statusCode, 200, linked.body);
    const refused = await t.app.inject({ method: 'DELETE', url: `${url}/backup` });
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json(), {
      error: 'model provider "backup" is in the failover list of "openai"',
    });
    const unknownFailover = await t.app.inject({
      method: 'PUT',
      url: `${url}/openai`,
      payload: { failover: ['ghost'] },
    });
    assert.equal(unknownFailover.statusCode, 400);
    assert.match(unknownFailover.json().error, /failover\.0 .*"ghost" is not another configured provider/);
  });

  it('PUT /config/models changes the default provider and its settings', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config/models',
      payload: { default: 'fast', base_url: 'http://127.0.0.1:9/v1', model: 'tiny', api_key: 'sk-fast' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().default, 'fast');
    assert.equal(t.store.current.models.default_provider, 'fast');
    assert.equal(t.store.current.models.providers['fast']?.api_key, 'sk-fast');
    const missing = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config/models',
      payload: { default: 'nobody' },
    });
    assert.equal(missing.statusCode, 404);
  });

  it('POST /config/models/reload re-reads the file; a broken file is refused and the old config kept', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT, env });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(t.configPath, CONFIG_TEXT.replace('model: gpt-test', 'model: gpt-reloaded'));
    const reloaded = await t.app.inject({ method: 'POST', url: '/api/v1/config/models/reload' });
    assert.equal(reloaded.statusCode, 200);
    assert.equal(reloaded.json().model, 'gpt-reloaded');
    await writeFile(t.configPath, CONFIG_TEXT.replace('port: 9527', 'port: [1'));
    const broken = await t.app.inject({ method: 'POST', url: '/api/v1/config/models/reload' });
    assert.equal(broken.statusCode, 400);
    assert.match(broken.json().error, /YAML syntax error/);
    assert.equal(t.store.current.models.providers['openai']?.model, 'gpt-reloaded');
  });
});
