// Cron on BullMQ: three real instances on loopback against the real Redis and PostgreSQL. A task
// firing every second keeps firing across a kill -9 of the instance running a fire: every second is
// recorded exactly once, none missed, and the model is called once per fire (plus the one the kill
// cut short). Each instance calls its own fake model, so the test sees which instance ran a fire.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { api, clusterSection, deployment, eventually, type Deployment, type Instance } from './instances.ts';

interface RunView {
  scheduledAt?: string;
  startedAt: string;
  status: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every run of a task seen so far, by scheduled time; the history keeps 20, so it is read often. */
class RunLog {
  readonly byFire = new Map<number, RunView>();
  /** A scheduled time listed twice in one history answer (must never happen). */
  duplicates = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;

  constructor(
    private readonly taskId: string,
    private readonly via: () => Instance,
  ) {}

  async read(): Promise<void> {
    const answer = await api(this.via(), 'GET', `/api/v1/cron/${this.taskId}/runs`);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const runs = (answer.json as { data: RunView[] }).data;
    const seen = new Set<number>();
    for (const run of runs) {
      assert.ok(run.scheduledAt, `a scheduled fire has its time: ${JSON.stringify(run)}`);
      const at = Date.parse(run.scheduledAt);
      if (seen.has(at)) this.duplicates++;
      seen.add(at);
      this.byFire.set(at, run);
    }
  }

  /** Reads every half second until stop(). */
  follow(): void {
    this.timer = setInterval(() => {
      this.read().catch((error: unknown) => (this.failure ??= error));
    }, 500);
  }

  /** Stops following; throws what a read threw meanwhile. */
  stop(): void {
    clearInterval(this.timer);
    if (this.failure) throw this.failure;
  }

  /** Scheduled times from the first seen to `until`, in order. */
  fires(until = Infinity): number[] {
    return [...this.byFire.keys()].filter((at) => at <= until).sort((x, y) => x - y);
  }
}

describe('cron on BullMQ across three instances', () => {
  let cluster: Deployment;
  const logs: RunLog[] = [];
  const upstreams = new Map<string, FakeUpstream>();
  const instances = new Map<string, Instance>();

  before(async () => {
    for (const name of ['a', 'b', 'c'])
      upstreams.set(name, await startFakeUpstream({ reply: 'Done.', latencyMs: 300 }));
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\n  shutdown_timeout_ms: 2000\n` +
        `models:\n  default_provider: fake\n  providers:\n    fake:\n      base_url: \${UPSTREAM_URL}\n      model: m\n` +
        clusterSection(prefix),
    );
    const started = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        cluster.start(name, { env: { UPSTREAM_URL: (upstreams.get(name) as FakeUpstream).url } }),
      ),
    );
    for (const instance of started) instances.set(instance.name, instance);
  });
  after(async () => {
    for (const log of logs) log.stop();
    await cluster?.close();
    for (const upstream of upstreams.values()) await upstream.close();
  });

  const instance = (name: string): Instance => instances.get(name) as Instance;
  const requests = (): number =>
    [...upstreams.values()].reduce((sum, upstream) => sum + upstream.requestCount, 0);

  it('a task every second fires exactly once per second across a kill -9 of the instance running it', async () => {
    const a = instance('a');
    const created = await api(a, 'POST', '/api/v1/cron', {
      id: 'every-second',
      name: 'Every second',
      schedule: '* * * * * *',
      message: 'tick',
      target: 'main',
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const log = new RunLog('every-second', () => a);
    logs.push(log);
    log.follow();
    // The first turns of each instance are slow (model worker start-up); then one a second.
    await eventually(async () => log.byFire.size >= 5, 20_000, 'five fires');

    // Kill -9 whichever of b and c calls its model next: it is running a fire at that moment.
    const counts = new Map([...upstreams].map(([name, upstream]) => [name, upstream.requestCount]));
    let victim: string | undefined;
    await eventually(
      async () => {
        victim = ['b', 'c'].find(
          (name) => (upstreams.get(name) as FakeUpstream).requestCount > (counts.get(name) ?? 0),
        );
        if (victim) instance(victim).child.kill('SIGKILL');
        return victim !== undefined;
      },
      15_000,
      'b or c running a fire',
    );
    const killedAt = Date.now();
    await instance(victim as string).exited;
    const survivor = instance(victim === 'b' ? 'c' : 'b');

    await sleep(13_000);
    const disabled = await api(survivor, 'PUT', '/api/v1/cron/every-second/toggle', { disabled: true });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.json));
    const disabledAt = Date.now();
    // Fires queued behind the dead instance's session lock drain; then every second is there.
    const first = log.fires()[0] as number;
    const expected = Math.floor((disabledAt - first) / 1000);
    await eventually(
      async () => {
        await log.read();
        return log.fires(disabledAt).length >= expected;
      },
      20_000,
      'every fire recorded',
    );
    await sleep(2_500);
    log.stop();
    await log.read();

    const fires = log.fires();
    assert.ok(
      first < killedAt - 5_000 && (fires.at(-1) as number) > killedAt + 10_000,
      'the fires span the kill',
    );
    assert.ok(fires.length >= 18, `fired ${fires.length} times`);
    // Not one second missing, none after the task was disabled.
    for (let index = 1; index < fires.length; index++)
      assert.equal(
        (fires[index] as number) - (fires[index - 1] as number),
        1000,
        `fire after ${fires[index - 1]}`,
      );
    assert.ok((fires.at(-1) as number) <= disabledAt, 'nothing fired after the task was disabled');
    assert.equal(log.duplicates, 0, 'a fire recorded twice');
    for (const run of log.byFire.values()) assert.equal(run.status, 'success', JSON.stringify(run));
    // The fire the kill cut short was run again on another instance, seconds late.
    const lateness = [...log.byFire.values()].map(
      (run) => Date.parse(run.startedAt) - Date.parse(run.scheduledAt as string),
    );
    assert.ok(Math.max(...lateness) >= 3_000, `a recovered fire: lateness ${Math.max(...lateness)} ms`);
    // One model call per fire, plus the one cut short by the kill.
    assert.ok(
      requests() >= fires.length && requests() <= fires.length + 1,
      `${requests()} model calls for ${fires.length} fires`,
    );
  });

  it('create, disable, enable and delete through one instance change what fires on all', async () => {
    const live = [...instances.values()].filter(
      (one) => one.child.exitCode === null && one.child.signalCode === null,
    );
    const [first, second] = live as [Instance, Instance];
    const created = await api(first, 'POST', '/api/v1/agents/main/cron', {
      id: 'toggled',
      name: 'Toggled',
      schedule: '* * * * * *',
      message: 'tock',
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const before = requests();
    const log = new RunLog('toggled', () => second);
    logs.push(log);
    await eventually(
      async () => {
        await log.read();
        return log.byFire.size >= 6;
      },
      12_000,
      'six fires',
    );
    assert.ok(requests() - before >= 6, 'each fire called the model');

    const off = await api(second, 'PUT', '/api/v1/agents/main/cron/toggled/toggle', { disabled: true });
    assert.equal(off.status, 200);
    assert.equal(off.json.nextRunAt, null);
    const offAt = Date.now();
    await sleep(2_500);
    await log.read();
    assert.ok(
      log.fires().every((at) => at <= offAt),
      'no fire after disable',
    );
    const onFirst = await api(first, 'GET', '/api/v1/cron/toggled');
    assert.equal(onFirst.json.disabled, true);

    const on = await api(first, 'PUT', '/api/v1/cron/toggled/toggle', { disabled: false });
    assert.equal(on.status, 200);
    const onAt = Date.now();
    await eventually(
      async () => {
        await log.read();
        return log.fires().some((at) => at > onAt);
      },
      5_000,
      'fires again once enabled',
    );

    const removed = await api(second, 'DELETE', '/api/v1/cron/toggled');
    assert.equal(removed.status, 200);
    const removedAt = Date.now();
    const calls = requests();
    await sleep(2_500);
    // At most a fire already running when it was deleted calls the model; nothing fires after.
    assert.ok(requests() <= calls + 1, 'no fires after delete');
    for (const one of live) assert.equal((await api(one, 'GET', '/api/v1/cron/toggled')).status, 404);
    assert.ok(removedAt > onAt);
  });
});
