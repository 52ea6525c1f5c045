// Clustered dependencies failing (issue 26), with real server processes: PostgreSQL unreachable for
// a while (a TCP proxy in front of the shared server is cut, then restored) and a Redis restart (a
// redis-server of the test's own, killed and started again). During each: GET /ready answers 503
// naming the dependency, a chat turn ends within the turn timeout (answered, or a visible error),
// the instance keeps running; after: /ready is 200 again by itself, every acknowledged turn is still
// in its session, and new turns and writes succeed. The outage lasts OUTAGE_MS (DEPENDENCY_OUTAGE_MS,
// default 6 s; 30000 for the full issue figure) with the turn timeout at TURN_TIMEOUT_MS, so a turn
// waiting on the database meets its limit inside the outage, as a 30 s outage does with the default.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DATABASE_UNREACHABLE_MESSAGE } from '../../src/storage/database-unreachable.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { startRedisProcess, type RedisProcess } from '../fakes/redis-process.ts';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';
import { call, site, until, type Answer, type Proc, type Site } from './chaos-harness.ts';

const OUTAGE_MS = Number(process.env['DEPENDENCY_OUTAGE_MS'] ?? 6_000);
const TURN_TIMEOUT_MS = 5_000;
/** What a turn may take past its timeout on a busy machine (the answer or error still has to go out). */
const MARGIN_MS = 3_000;
const REDIS_DOWN = 'the cluster coordination service (Redis) is unreachable';

/** A chat turn; with its duration. */
async function turn(proc: Proc, sessionId: string, content: string): Promise<Answer & { ms: number }> {
  const started = Date.now();
  const answer = await call(proc, 'POST', '/api/v1/chat/completions', {
    model: 'main',
    sessionId,
    messages: [{ role: 'user', content }],
  });
  return { ...answer, ms: Date.now() - started };
}

/** The user messages stored in a session, oldest first. */
async function userMessages(proc: Proc, sessionId: string): Promise<string[]> {
  const sessions = await call(proc, 'GET', '/api/v1/agents/main/sessions?size=100');
  assert.equal(sessions.status, 200, JSON.stringify(sessions.json));
  const found = (sessions.json['data'] as Array<{ key: string }>).find((session) =>
    session.key.endsWith(`:${sessionId}`),
  );
  assert.ok(found, `session ${sessionId} is listed`);
  const messages = await call(
    proc,
    'GET',
    `/api/v1/agents/main/sessions/${encodeURIComponent(found.key)}/messages?size=100`,
  );
  assert.equal(messages.status, 200, JSON.stringify(messages.json));
  return (messages.json['data'] as Array<{ role: string; content: unknown }>)
    .filter((message) => message.role === 'user')
    .map((message) => String(message.content));
}

/** A turn during an outage ends in time: answered, or a visible error (a JSON `error`). */
function assertEnded(outcome: Answer & { ms: number }, error: string, what: string): void {
  assert.ok(outcome.ms < TURN_TIMEOUT_MS + MARGIN_MS, `${what}: ended after ${outcome.ms} ms`);
  if (outcome.status === 200) return;
  // Or the turn's own limit: it waited on the dependency for as long as it may.
  const timedOut = { status: 504, json: { error: `the turn did not finish within ${TURN_TIMEOUT_MS} ms` } };
  const { ms: _ms, ...answer } = outcome;
  if (outcome.status !== 504) assert.deepEqual(answer, { status: 503, json: { error } }, what);
  else assert.deepEqual(answer, timedOut, what);
}

describe('clustered: PostgreSQL and Redis failing', () => {
  let model: FakeUpstream;
  let redis: RedisProcess;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let place: Site | undefined;
  let server: Proc;
  /** Turns answered 200: each must stay in its session whatever fails later. */
  const acknowledged: string[] = [];

  before(async () => {
    model = await startFakeUpstream({ reply: 'Answered.' });
    redis = await startRedisProcess();
    database = await createTestDatabase('postgres', process.env);
    proxy = await startTcpProxy(Number(new URL(database.databaseUrl).port || 5432));
    const proxied = new URL(database.databaseUrl);
    proxied.port = String(proxy.port);
    place = await site({
      server: { host: '127.0.0.1', request_timeout_ms: TURN_TIMEOUT_MS, shutdown_timeout_ms: 2_000 },
      agents: { turn_timeout_ms: TURN_TIMEOUT_MS },
      models: model.modelsConfig({ timeout_ms: TURN_TIMEOUT_MS }),
      data: { database_url: proxied.toString() },
      cluster: { redis_url: redis.url, key_prefix: `outage-${randomBytes(4).toString('hex')}:` },
    });
    server = await place.start('a');
    // The first turn of an instance is slow (its model workers start): not one of the measured.
    await until(async () => (await turn(server, 'warm-up', 'hello')).status === 200, 60_000, 'a first turn');
  });
  after(async () => {
    await place?.close();
    await proxy?.close();
    await database?.drop();
    await redis?.close();
    await model?.close();
  });

  const ready = async (): Promise<Answer> => call(server, 'GET', '/ready');
  const answered = async (content: string): Promise<void> => {
    const outcome = await turn(server, 'kept', content);
    assert.equal(outcome.status, 200, `${content}: ${JSON.stringify(outcome.json)}`);
    acknowledged.push(content);
  };

  it('PostgreSQL unreachable: /ready 503, a turn ends in time, nothing acknowledged lost, back by itself', async () => {
    assert.equal((await ready()).status, 200);
    await answered('before the database outage');

    const cutAt = Date.now();
    proxy.cutOff();
    try {
      await until(async () => (await ready()).status === 503, 10_000, '/ready 503 with PostgreSQL cut off');
      const during = await ready();
      assert.equal((during.json['checks'] as Record<string, string>)['database'], 'unreachable');
      assert.equal((during.json['checks'] as Record<string, string>)['redis'], 'ok');
      const outageTurn = await turn(server, 'kept', 'during the database outage');
      assertEnded(outageTurn, DATABASE_UNREACHABLE_MESSAGE, 'a turn during the database outage');
      if (outageTurn.status === 200) acknowledged.push('during the database outage');
      assert.ok(server.alive(), 'the instance keeps running');
      // The outage lasts its set time (the fault's length, not a wait for a condition).
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - cutAt)));
      assert.equal((await ready()).status, 503, 'still not ready while the database is away');
    } finally {
      proxy.restore();
    }
    const back = await until(async () => (await ready()).status === 200, 20_000, '/ready 200 after');
    assert.ok(back < 20_000);
    await answered('after the database outage');
    const stored = await userMessages(server, 'kept');
    for (const content of acknowledged) assert.ok(stored.includes(content), `"${content}" is kept`);
  });

  it('Redis restarted: /ready 503, a turn ends in time, writes refused with 503, back by itself', async () => {
    await answered('before the Redis restart');
    await redis.stop();
    try {
      await until(async () => (await ready()).status === 503, 10_000, '/ready 503 with Redis down');
      const during = await ready();
      assert.equal((during.json['checks'] as Record<string, string>)['redis'], 'unreachable');
      const outageTurn = await turn(server, 'kept', 'during the Redis restart');
      assertEnded(outageTurn, REDIS_DOWN, 'a turn while Redis is down');
      if (outageTurn.status === 200) acknowledged.push('during the Redis restart');
      const write = await call(server, 'POST', '/api/v1/config/models/providers', {
        id: 'while-down',
        base_url: 'http://127.0.0.1:9/v1',
        model: 'm',
      });
      assert.deepEqual(write, {
        status: 503,
        json: { error: 'the cluster coordination service (Redis) is unreachable' },
      });
      assert.ok(server.alive(), 'the instance keeps running');
    } finally {
      // Restarted empty (nothing saved): locks, leases and the cron queue are rebuilt by themselves.
      await redis.start();
    }
    await until(async () => (await ready()).status === 200, 20_000, '/ready 200 after the restart');
    await answered('after the Redis restart');
    const written = await call(server, 'POST', '/api/v1/config/models/providers', {
      id: 'after-restart',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    assert.equal(written.status, 201, JSON.stringify(written.json));
    const stored = await userMessages(server, 'kept');
    for (const content of acknowledged) assert.ok(stored.includes(content), `"${content}" is kept`);
    assert.doesNotMatch(server.output(), /"level":60/);
  });
});
