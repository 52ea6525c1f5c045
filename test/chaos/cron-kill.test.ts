// A cron fire through a kill -9 in single mode (issue 26; test/cluster/cron.test.ts is the clustered
// counterpart): a real server fires a task at its second, the model holds the turn, the server is
// killed with SIGKILL mid-fire. The fire was recorded (durable_work) before it ran, so the next start
// runs it again at once: it is answered and recorded exactly once, under its scheduled second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { call, kill9, site, until, type Proc, type Site } from './chaos-harness.ts';

interface RunView {
  scheduledAt?: string;
  status: string;
  reply?: string;
  error?: string;
}

/** A six-field schedule firing once a year, at `at` (a whole second, UTC). */
function yearlyAt(at: Date): string {
  const fields = [
    at.getUTCSeconds(),
    at.getUTCMinutes(),
    at.getUTCHours(),
    at.getUTCDate(),
    at.getUTCMonth() + 1,
  ];
  return `${fields.join(' ')} *`;
}

const MARKER = 'cron fire through a kill';

describe('single mode: a cron fire through kill -9', () => {
  let model: FakeUpstream;
  let place: Site | undefined;

  before(async () => {
    model = await startFakeUpstream({ reply: 'Fired.' });
  });
  after(async () => {
    await place?.close();
    await model?.close();
  });

  /** Model calls that carried the task's message. */
  const calls = (): number =>
    model.requests.filter((body) => JSON.stringify(body['messages']).includes(MARKER)).length;

  it('the fire the kill cut short runs again at the next start, recorded exactly once', async () => {
    place = await site({
      server: { host: '127.0.0.1', shutdown_timeout_ms: 2_000 },
      models: model.modelsConfig(),
    });
    const env = { TZ: 'UTC' };
    let server = await place.start('single', env);
    const runs = async (proc: Proc): Promise<RunView[]> => {
      const answer = await call(proc, 'GET', '/api/v1/cron/through-kill/runs');
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
      return answer.json['data'] as RunView[];
    };

    // Created disabled, then enabled for a second a few seconds ahead; a machine too slow to enable
    // it before that second gets the task again, further ahead.
    model.setMode('hang');
    let firesAt = 0;
    for (const lead of [4_000, 10_000, 30_000]) {
      firesAt = Math.ceil((Date.now() + lead) / 1000) * 1000;
      const created = await call(server, 'POST', '/api/v1/cron', {
        id: 'through-kill',
        name: 'Through a kill',
        schedule: yearlyAt(new Date(firesAt)),
        message: MARKER,
        target: 'main',
        disabled: true,
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const enabled = await call(server, 'PUT', '/api/v1/cron/through-kill/toggle', { disabled: false });
      assert.equal(enabled.status, 200, JSON.stringify(enabled.json));
      if (enabled.json['nextRunAt'] === new Date(firesAt).toISOString()) break;
      assert.equal((await call(server, 'DELETE', '/api/v1/cron/through-kill')).status, 200);
      firesAt = 0;
    }
    assert.ok(firesAt > 0, 'the task was enabled before its second');

    // The fire reaches the model, which holds it: the server dies with the turn in flight.
    await until(() => calls() === 1, 60_000, 'the fire calls the model');
    assert.deepEqual(await runs(server), [], 'nothing recorded while the fire runs');
    await kill9(server);

    model.setMode('ok');
    server = await place.start('single-again', env);
    await until(async () => (await runs(server)).length > 0, 60_000, 'the interrupted fire is recorded');
    const recorded = await runs(server);
    assert.equal(recorded.length, 1, JSON.stringify(recorded));
    assert.equal(recorded[0]?.scheduledAt, new Date(firesAt).toISOString());
    assert.equal(recorded[0]?.status, 'success', JSON.stringify(recorded[0]));
    assert.equal(recorded[0]?.reply, 'Fired.');
    assert.equal(calls(), 2, 'the killed call and the one run again');
    assert.match(server.output(), /an interrupted cron fire runs again/);

    // Another start finds it done: a run by hand afterwards is the only new run.
    server.child.kill('SIGTERM');
    await server.exited;
    server = await place.start('third', env);
    const byHand = await call(server, 'POST', '/api/v1/cron/through-kill/run');
    assert.equal(byHand.status, 200, JSON.stringify(byHand.json));
    const all = await runs(server);
    assert.equal(all.length, 2, JSON.stringify(all));
    assert.equal(all.filter((run) => run.scheduledAt === new Date(firesAt).toISOString()).length, 1);
    assert.equal(calls(), 3, 'no call of the fire again');
    assert.doesNotMatch(server.output(), /an interrupted cron fire runs again/);
  });
});
