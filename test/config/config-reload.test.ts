import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';

const CONFIG_TEXT = `server:
  host: 127.0.0.1
  port: 9527
security:
  requireAuth: false
`;

describe('POST /config/reload', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('re-reads a file edited by hand and says which settings need a restart', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT });
    await writeFile(
      t.configPath,
      CONFIG_TEXT.replace('requireAuth: false', 'requireAuth: true').replace('9527', '9601'),
    );
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/config/reload' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      success: true,
      message: 'reloaded; restart to apply server.port',
      restartRequired: ['server.port'],
    });
    assert.equal(t.store.current.security.requireAuth, true);
  });

  it('refuses a broken file with a 400 naming the problem and keeps the running config', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT });
    await writeFile(t.configPath, CONFIG_TEXT.replace('requireAuth: false', 'requireAuth: maybe'));
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/config/reload' });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /security\.requireAuth/);
    assert.equal(t.store.current.security.requireAuth, false);
  });

  it('is listed in the OpenAPI document', async () => {
    t = await createTestApp({ configText: CONFIG_TEXT });
    const document = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    assert.ok(document.paths['/api/v1/config/reload']?.post);
  });
});
