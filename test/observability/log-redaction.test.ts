// A credential in the query of a WebSocket route (?token=, ?key=) never reaches the request log.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, redactQueryCredentials } from '../../src/http/logger.ts';
import { createTestApp } from '../fakes/app-harness.ts';

describe('query credentials in the request log', () => {
  it('a plain GET of /api/v1/ws?token=... is logged with the token replaced', async () => {
    let output = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const t = await createTestApp({ logger: createLogger('info', sink) });
    try {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/ws?agentId=main&token=sk-very-secret-123',
      });
      assert.equal(response.statusCode, 426);
      assert.match(output, /"url":"\/api\/v1\/ws\?agentId=main&token=\[redacted\]"/);
      assert.doesNotMatch(output, /sk-very-secret-123/);
    } finally {
      await t.close();
    }
  });

  it('replaces token, key, access_token and api_key values only', () => {
    assert.equal(
      redactQueryCredentials('/a?key=1&x=2&access_token=3&api_key=4&monkey=5'),
      '/a?key=[redacted]&x=2&access_token=[redacted]&api_key=[redacted]&monkey=5',
    );
    assert.equal(redactQueryCredentials('/plain'), '/plain');
  });
});
