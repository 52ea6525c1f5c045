import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { validateCronExpression } from '../../src/scheduler/cron-expression.ts';
import { createServices, type Services } from '../../src/services.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';

const task = {
  name: 'Daily report',
  schedule: '0 30 9 * * 1-5',
  message: 'Write the report',
  target: 'main',
};

async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(100);
  }
  return undefined;
}

describe('cron expressions', () => {
  it('accepts six fields with stars, numbers, ranges, lists, steps and names', () => {
    assert.equal(
      validateCronExpression('  */5  0-30/10 1,2,3 * JAN-mar mon-fri '),
      '*/5 0-30/10 1,2,3 * JAN-mar mon-fri',
    );
    assert.equal(validateCronExpression('0 0 0 1 12 7'), '0 0 0 1 12 7');
    assert.equal(validateCronExpression('0 0 12 ? * 0'), '0 0 12 ? * 0');
  });

  it('a wrong field count names the expected fields', () => {
    const expected =
      'schedule: expected 6 fields (second minute hour day month weekday) or 5 (minute hour day month weekday)';
    assert.throws(() => validateCronExpression('* * * *'), { message: `${expected}, got 4` });
    assert.throws(() => validateCronExpression('* * * * * * *'), { message: `${expected}, got 7` });
  });

  it('accepts the standard five fields, at second 0, and counts positions as written', () => {
    assert.equal(validateCronExpression('*/5 * * * *'), '0 */5 * * * *');
    assert.equal(validateCronExpression(' 30 9 * * mon-fri '), '0 30 9 * * mon-fri');
    assert.throws(() => validateCronExpression('0 25 * * *'), {
      message: 'schedule: field "hour" (2nd) "25" is out of range 0-23',
    });
  });

  it('each field out of range names the field, its position and its range', () => {
    const cases: Array<[string, string]> = [
      ['60 * * * * *', 'field "second" (1st) "60" is out of range 0-59'],
      ['* 61 * * * *', 'field "minute" (2nd) "61" is out of range 0-59'],
      ['* * 25 * * *', 'field "hour" (3rd) "25" is out of range 0-23'],
      ['* * * 0 * *', 'field "day" (4th) "0" is out of range 1-31'],
      ['* * * * 13 *', 'field "month" (5th) "13" is out of range 1-12'],
      ['* * * * * 8', 'field "weekday" (6th) "8" is out of range 0-7'],
      ['* * 1-30 * * *', 'field "hour" (3rd) "30" is out of range 0-23'],
      ['* x * * * *', 'field "minute" (2nd) "x" is not a number'],
      ['*/0 * * * * *', 'field "second" (1st) "*/0" has a step out of range 1-59'],
      ['* * 5-2 * * *', 'field "hour" (3rd) "5-2" is a range whose start is after its end'],
      ['* * * * FOO *', 'field "month" (5th) "FOO" is not a number or a name'],
    ];
    for (const [expression, message] of cases) {
      assert.throws(
        () => validateCronExpression(expression),
        { message: `schedule: ${message}` },
        expression,
      );
    }
  });
});

describe('cron tasks over REST', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, ...(payload ? { payload } : {}) });

  it('create, get, list, toggle both ways and delete with exact shapes', async () => {
    t = await createTestApp();
    const created = await inject('POST', '/api/v1/cron', task);
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.id, /^daily-report-[0-9a-f]{6}$/);
    assert.ok(!Number.isNaN(Date.parse(body.nextRunAt)));
    assert.deepEqual(body, {
      id: body.id,
      ...task,
      disabled: false,
      nextRunAt: body.nextRunAt,
      createdAt: body.createdAt,
      updatedAt: body.updatedAt,
      lastRun: null,
    });
    const id = body.id as string;
    assert.deepEqual((await inject('GET', `/api/v1/cron/${id}`)).json(), body);
    assert.deepEqual((await inject('GET', '/api/v1/cron')).json(), [body]);
    assert.deepEqual((await inject('GET', '/api/v1/cron?agentId=main')).json(), [body]);
    assert.deepEqual((await inject('GET', '/api/v1/cron?agentId=other')).json(), []);

    const off = await inject('PUT', `/api/v1/cron/${id}/toggle`, { disabled: true });
    assert.equal(off.statusCode, 200);
    assert.equal(off.json().disabled, true);
    assert.equal(off.json().nextRunAt, null);
    const on = await inject('PUT', `/api/v1/cron/${id}/toggle`, { disabled: false });
    assert.equal(on.json().disabled, false);
    assert.equal(on.json().nextRunAt, body.nextRunAt);

    const removed = await inject('DELETE', `/api/v1/cron/${id}`);
    assert.deepEqual(removed.json(), { success: true, message: `cron task "${id}" deleted` });
    const gone = await inject('GET', `/api/v1/cron/${id}`);
    assert.equal(gone.statusCode, 404);
    assert.deepEqual(gone.json(), { error: `cron task "${id}" not found` });
    assert.deepEqual((await inject('GET', '/api/v1/cron')).json(), []);
  });

  it('an explicit id is kept, and taking it twice is a 409', async () => {
    t = await createTestApp();
    const created = await inject('POST', '/api/v1/cron', { ...task, id: 'report' });
    assert.equal(created.json().id, 'report');
    const again = await inject('POST', '/api/v1/cron', { ...task, id: 'report' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { error: 'cron task "report" already exists' });
  });

  it('a standard five-field schedule is stored in the six-field form, at second 0', async () => {
    t = await createTestApp();
    const standard = await inject('POST', '/api/v1/cron', {
      ...task,
      id: 'five',
      schedule: '15 8 * * *',
      disabled: true,
    });
    assert.equal(standard.statusCode, 201, standard.body);
    assert.equal(standard.json().schedule, '0 15 8 * * *');
  });

  it('bad bodies, bad schedules and unknown targets are refused with the field named', async () => {
    t = await createTestApp();
    const hour = await inject('POST', '/api/v1/cron', { ...task, schedule: '0 0 25 * * *' });
    assert.equal(hour.statusCode, 400);
    assert.deepEqual(hour.json(), { error: 'schedule: field "hour" (3rd) "25" is out of range 0-23' });
    const five = await inject('POST', '/api/v1/cron', { ...task, schedule: '0 25 * * *' });
    assert.deepEqual(five.json(), { error: 'schedule: field "hour" (2nd) "25" is out of range 0-23' });
    const missing = await inject('POST', '/api/v1/cron', {
      name: 'x',
      schedule: '* * * * * *',
      target: 'main',
    });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /^body\.message: /);
    const toggle = await inject('PUT', '/api/v1/cron/x/toggle', { disabled: 'yes' });
    assert.equal(toggle.statusCode, 400);
    assert.match(toggle.json().error, /^body\.disabled: /);
    const ghost = await inject('POST', '/api/v1/cron', { ...task, target: 'ghost' });
    assert.equal(ghost.statusCode, 404);
    assert.deepEqual(ghost.json(), { error: 'agent "ghost" not found' });
    assert.deepEqual((await inject('GET', '/api/v1/cron')).json(), []);
  });

  it('unknown tasks are 404 on every item route', async () => {
    t = await createTestApp();
    for (const [method, url, payload] of [
      ['GET', '/api/v1/cron/nope'],
      ['DELETE', '/api/v1/cron/nope'],
      ['PUT', '/api/v1/cron/nope/toggle', { disabled: true }],
      ['POST', '/api/v1/cron/nope/run'],
    ] as const) {
      const response = await inject(method, url, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(response.json(), { error: 'cron task "nope" not found' });
    }
  });

  it('agent-level routes see only the tasks of their agent', async () => {
    t = await createTestApp();
    const other = agentDefinition('other');
    assert.equal((await inject('POST', '/api/v1/agents', other)).statusCode, 201);
    const { target: _target, ...fields } = task;
    const mine = await inject('POST', '/api/v1/agents/main/cron', { ...fields, id: 'mine' });
    assert.equal(mine.statusCode, 201, mine.body);
    assert.equal(mine.json().target, 'main');
    const theirs = await inject('POST', '/api/v1/agents/other/cron', {
      ...fields,
      id: 'theirs',
      target: 'other',
    });
    assert.equal(theirs.statusCode, 201);

    const mismatch = await inject('POST', '/api/v1/agents/main/cron', { ...fields, target: 'other' });
    assert.equal(mismatch.statusCode, 400);
    assert.deepEqual(mismatch.json(), {
      error: 'body.target: must be "main" (the agent in the path) or left out',
    });

    assert.deepEqual(
      (await inject('GET', '/api/v1/agents/main/cron')).json().map((item: { id: string }) => item.id),
      ['mine'],
    );
    assert.equal((await inject('GET', '/api/v1/agents/main/cron/mine')).statusCode, 200);
    const foreign = await inject('GET', '/api/v1/agents/main/cron/theirs');
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(foreign.json(), { error: 'cron task "theirs" not found' });
    assert.equal(
      (await inject('PUT', '/api/v1/agents/main/cron/theirs/toggle', { disabled: true })).statusCode,
      404,
    );
    assert.equal((await inject('DELETE', '/api/v1/agents/main/cron/theirs')).statusCode, 404);
    const noAgent = await inject('GET', '/api/v1/agents/ghost/cron');
    assert.equal(noAgent.statusCode, 404);
    assert.deepEqual(noAgent.json(), { error: 'agent "ghost" not found' });

    const toggled = await inject('PUT', '/api/v1/agents/other/cron/theirs/toggle', { disabled: true });
    assert.equal(toggled.json().disabled, true);
    assert.equal((await inject('DELETE', '/api/v1/agents/other/cron/theirs')).statusCode, 200);
    assert.deepEqual(
      (await inject('GET', '/api/v1/cron')).json().map((item: { id: string }) => item.id),
      ['mine'],
    );
  });

  it('deleting an agent deletes its tasks', async () => {
    t = await createTestApp();
    const other = agentDefinition('other');
    await inject('POST', '/api/v1/agents', other);
    await inject('POST', '/api/v1/cron', { ...task, id: 'gone', target: 'other' });
    await inject('POST', '/api/v1/cron', { ...task, id: 'kept' });
    assert.equal((await inject('DELETE', '/api/v1/agents/other')).statusCode, 200);
    assert.deepEqual(
      (await inject('GET', '/api/v1/cron')).json().map((item: { id: string }) => item.id),
      ['kept'],
    );
  });
});

describe('cron scheduling', () => {
  let t: TestApp;
  let extra: Services | undefined;
  afterEach(async () => {
    await extra?.close();
    extra = undefined;
    await t?.close();
  });

  it('a task every second fires and records the demo model reply; a disabled one does not fire', async () => {
    t = await createTestApp();
    const inject = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      t.app.inject({ method, url, ...(payload ? { payload } : {}) });
    // Created disabled, so it can never fire (disabling it a moment later would race the scheduler).
    const quiet = await inject('POST', '/api/v1/cron', {
      ...task,
      id: 'quiet',
      schedule: '* * * * * *',
      disabled: true,
    });
    assert.equal(quiet.statusCode, 201, quiet.body);
    await inject('POST', '/api/v1/cron', { ...task, id: 'tick', schedule: '* * * * * *', message: 'ping' });
    // Conditions, not times: a busy machine may fire late, so the wait is long and ends at the first run.
    const ran = await waitFor(async () => {
      const body = (await inject('GET', '/api/v1/cron/tick')).json();
      return body.lastRun ? body : undefined;
    }, 60_000);
    assert.ok(ran, 'the task did not fire');
    assert.equal(ran.lastRun.status, 'success', JSON.stringify(ran.lastRun));
    assert.match(ran.lastRun.reply, /^\[demo model\]/);
    assert.ok(Date.parse(ran.lastRun.endedAt) >= Date.parse(ran.lastRun.startedAt));
    // The disabled task had every second the enabled one had: two more fires of tick prove a full
    // second passed with the scheduler running.
    const fired = await waitFor(async () => {
      const runs = (await inject('GET', '/api/v1/cron/tick/runs')).json().data as unknown[];
      return runs.length >= 3 ? runs : undefined;
    }, 60_000);
    assert.ok(fired, 'the task fired again');
    assert.equal((await inject('GET', '/api/v1/cron/quiet')).json().lastRun, null);
    // The run used the task's own session on channel cron.
    const history = await t.services.sessions.load('agent:main:channel:cron:scope:main:tick');
    assert.ok(history.some((message) => message.role === 'user' && message.content === 'ping'));
  });

  it('runNow records a failure when the target agent is not loaded', async () => {
    t = await createTestApp();
    const off = agentDefinition('off', { disabled: true });
    await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: off });
    await t.services.scheduler.create({ ...task, id: 'broken', target: 'off' });
    const result = await t.services.scheduler.runNow('broken');
    assert.equal(result.lastRun?.status, 'failure');
    assert.equal(result.lastRun?.error, 'agent "off" is not loaded');
    const viaRoute = await t.app.inject({ method: 'POST', url: '/api/v1/cron/broken/run' });
    assert.equal(viaRoute.statusCode, 200);
    assert.equal(viaRoute.json().lastRun.status, 'failure');
  });

  it('tasks and their last run survive a restart, disabled stays disabled', async () => {
    t = await createTestApp();
    const first = await createServices(t.store);
    extra = first;
    await first.scheduler.create({ ...task, id: 'kept' });
    await first.scheduler.create({ ...task, id: 'off' });
    await first.scheduler.toggle('off', true);
    await first.scheduler.runNow('kept');
    const before = await first.scheduler.list();
    extra = undefined;
    await first.close();
    extra = await createServices(t.store);
    const after = await extra.scheduler.list();
    assert.deepEqual(after, before);
    assert.equal(after.find((item) => item.id === 'off')?.disabled, true);
    assert.equal(after.find((item) => item.id === 'kept')?.lastRun?.status, 'success');
    assert.ok(after.find((item) => item.id === 'kept')?.nextRunAt);
  });
});
