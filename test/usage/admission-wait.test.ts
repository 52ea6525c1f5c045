// A turn's admission check (rate limit, budgets) runs before the turn's own time limit starts, so a
// store that does not answer (PostgreSQL cut off, Redis away) must not hold the request: after a
// short wait it is refused with a 503 and Retry-After (fail closed: a limit is never waived). A
// refusal within the wait is a 429 as before.
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { describe, it } from 'node:test';
import '../../src/http/auth-hook.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { installChatGuard } from '../../src/usage/chat-guard.ts';
import {
  AdmissionUnavailableError,
  RateLimitError,
  admitWithin,
  type UsageGuard,
} from '../../src/usage/guard.ts';

function appWith(admitApi: () => Promise<void>) {
  const app = Fastify();
  app.decorateRequest('principal', undefined);
  installChatGuard(app, { admitApi } as unknown as UsageGuard);
  app.post('/chat', { config: { auth: 'chat' } }, async () => ({ ok: true }));
  return app;
}

describe('admission wait', () => {
  it('a check that never answers is refused with a 503 after the wait, never waived', async () => {
    let reached = false;
    const app = Fastify();
    app.decorateRequest('principal', undefined);
    installErrorHandler(app, 1 << 20);
    installChatGuard(app, { admitApi: () => new Promise<void>(() => undefined) } as unknown as UsageGuard);
    app.post('/chat', { config: { auth: 'chat' } }, async () => {
      reached = true;
      return { ok: true };
    });
    const started = Date.now();
    const response = await app.inject({ method: 'POST', url: '/chat', payload: { model: 'main' } });
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['retry-after'], '1');
    assert.match(response.json<{ error: string }>().error, /did not answer within 1500 ms/);
    assert.equal(reached, false, 'the turn did not start');
    assert.ok(Date.now() - started < 10_000);
    await app.close();
  });

  it('a refusal within the wait is still a 429 with Retry-After', async () => {
    const app = appWith(() => Promise.reject(new RateLimitError('rate limit reached', 7, 0)));
    const response = await app.inject({ method: 'POST', url: '/chat', payload: { model: 'main' } });
    assert.equal(response.statusCode, 429);
    assert.equal(response.headers['retry-after'], '7');
    await app.close();
  });

  it('admitWithin settles as the check does, or rejects after the wait', async () => {
    await admitWithin(Promise.resolve(), 60_000);
    await assert.rejects(admitWithin(Promise.reject(new Error('refused')), 60_000), /refused/);
    await assert.rejects(admitWithin(new Promise<void>(() => undefined), 10), AdmissionUnavailableError);
  });
});
