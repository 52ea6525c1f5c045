import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { createServices, type Services } from '../../src/services.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';

const SESSION_KEY = (id: string) => `agent:main:channel:api:scope:per_peer:${id}`;

/** The non-system messages of an upstream request, as [role, content] pairs. */
function conversation(request: Record<string, unknown> | undefined): Array<[string, unknown]> {
  const messages = (request?.['messages'] ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((message) => message.role !== 'system')
    .map((message) => [message.role, message.content]);
}

for (const kind of DATABASE_KINDS)
  describe(`the server's sessions and cron tasks on ${kind}`, () => {
    let database: TestDatabase | undefined;
    let upstream: FakeUpstream | undefined;
    let t: TestApp | undefined;
    let restarted: Services | undefined;
    afterEach(async () => {
      await restarted?.close();
      await t?.close();
      await upstream?.close();
      await database?.drop();
      restarted = t = upstream = database = undefined;
    });

    const start = async () => {
      database = await createTestDatabase(kind, process.env);
      upstream = await startFakeUpstream({ reply: 'Noted.' });
      t = await createTestApp({
        config: {
          data: { root_dir: './data', database_url: database.databaseUrl },
          models: upstream.modelsConfig(),
        },
      });
      return t;
    };
    const chat = (app: TestApp, sessionId: string, content: string) =>
      app.app.inject({
        method: 'POST',
        url: '/api/v1/chat/completions',
        payload: { model: 'main', sessionId, messages: [{ role: 'user', content }] },
      });

    it('a sessionId continues a conversation, also after a restart, until it is cleared', async () => {
      const app = await start();
      assert.equal((await chat(app, 'ada', 'my name is Ada')).statusCode, 200);
      assert.equal((await chat(app, 'ada', 'what is my name?')).statusCode, 200);
      assert.deepEqual(conversation(upstream?.requests.at(-1)), [
        ['user', 'my name is Ada'],
        ['assistant', 'Noted.'],
        ['user', 'what is my name?'],
      ]);
      // A second set of services on the same config and database: what a restarted server sees.
      restarted = await createServices(app.store);
      const history = await restarted.sessions.load(SESSION_KEY('ada'));
      assert.deepEqual(
        history.map((message) => [message.role, message.content]),
        [
          ['user', 'my name is Ada'],
          ['assistant', 'Noted.'],
          ['user', 'what is my name?'],
          ['assistant', 'Noted.'],
        ],
      );
      const cleared = await app.app.inject({
        method: 'POST',
        url: '/api/v1/sessions/clear',
        payload: { agentId: 'main', sessionKey: 'ada', channel: 'api', scope: 'per_peer' },
      });
      assert.deepEqual(cleared.json(), { success: true, message: `session "${SESSION_KEY('ada')}" cleared` });
      assert.deepEqual(await restarted.sessions.load(SESSION_KEY('ada')), []);
    });

    it('cron tasks made over REST, and their runs, are read back by a restarted server', async () => {
      const app = await start();
      const created = await app.app.inject({
        method: 'POST',
        url: '/api/v1/cron',
        payload: {
          id: 'nightly',
          name: 'Nightly',
          schedule: '0 0 3 * * *',
          message: 'report',
          target: 'main',
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const ran = await app.app.inject({ method: 'POST', url: '/api/v1/cron/nightly/run' });
      assert.equal(ran.json().lastRun.status, 'success', ran.body);
      assert.equal(ran.json().lastRun.reply, 'Noted.');
      restarted = await createServices(app.store);
      const [task] = await restarted.scheduler.list();
      assert.equal(task?.id, 'nightly');
      assert.deepEqual(task?.lastRun, ran.json().lastRun);
    });
  });

describe('the database URL in the config view', () => {
  let database: TestDatabase | undefined;
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    await database?.drop();
    t = database = undefined;
  });

  it('shows a password as ***, and a view written back keeps the stored URL', async () => {
    database = await createTestDatabase('postgres', process.env);
    // The test server trusts loopback, so any password connects: what matters is that none is shown.
    const url = new URL(database.location);
    url.password = 'Hunter2-secret';
    t = await createTestApp({ config: { data: { root_dir: './data', database_url: url.toString() } } });
    const view = await t.app.inject({ method: 'GET', url: '/api/v1/config' });
    assert.equal(view.statusCode, 200);
    assert.doesNotMatch(view.body, /Hunter2/);
    url.username = '***';
    url.password = '';
    assert.equal(view.json().data.database_url, url.toString());
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/config',
      payload: { data: view.json().data },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json().restartRequired, []);
    assert.match(t.store.current.data.database_url, /:Hunter2-secret@/);
  });

  it('is empty in libsql mode', async () => {
    // A config text of its own keeps this app on libsql even when TEST_DATABASE=postgres.
    t = await createTestApp({ configText: 'data:\n  root_dir: ./data\n' });
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/config' })).json().data.database_url, '');
  });
});
