import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/http/logger.ts';
import { createTestApp } from '../fakes/app-harness.ts';

describe('request logging', () => {
  it('logs requests with pino and never writes a password, token or key', async () => {
    let output = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += chunk.toString();
        done();
      },
    });
    const t = await createTestApp({
      logger: createLogger('info', sink),
      config: { security: { requireAuth: true, users: { admin: 'changeme:sk-admin-secret-key' } } },
    });
    try {
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: 'changeme' },
      });
      const token = login.json().token as string;
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/config',
        headers: { authorization: `Bearer ${token}` },
      });
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/config',
        headers: { authorization: 'Bearer sk-admin-secret-key' },
      });
      await t.app.inject({
        method: 'PUT',
        url: '/api/v1/auth/password',
        headers: { authorization: `Bearer ${token}` },
        payload: { oldPassword: 'wrong-old', newPassword: 'another-secret-pw' },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/config/models/providers',
        payload: { id: 'p', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-provider-secret' },
      });
    } finally {
      await t.close();
    }
    assert.match(output, /"method":"GET","url":"\/api\/v1\/config","status":200,"ms":[\d.]+,"msg":"request"/);
    assert.doesNotMatch(output, /incoming request/, 'one line per request');
    for (const secret of [
      'changeme',
      'sk-admin-secret-key',
      'another-secret-pw',
      'wrong-old',
      'sk-provider-secret',
      'Bearer ',
    ]) {
      assert.ok(!output.includes(secret), `log contains ${secret}`);
    }
  });
});
