// The cron routes the web UI needs: a schedule preview (GET /cron/preview) computed by the
// scheduler's own parser, and a task's run history (GET /cron/{id}/runs), also per agent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { previewSchedule } from '../../src/resources/cron/cron.service.ts';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';

describe('cron schedule preview', () => {
  let server: TestApp;
  before(async () => {
    server = await createTestApp();
  });
  after(async () => server?.close());

  const get = (url: string) => server.app.inject({ method: 'GET', url });

  it('gives the next runs in order, five by default, in the server time zone', async () => {
    const response = await get(`/api/v1/cron/preview?schedule=${encodeURIComponent('*/10 * * * * *')}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { schedule: string; timeZone: string; nextRuns: string[] };
    assert.equal(body.schedule, '*/10 * * * * *');
    assert.equal(body.timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.equal(body.nextRuns.length, 5);
    const times = body.nextRuns.map((text) => Date.parse(text));
    for (let index = 1; index < times.length; index++) {
      assert.equal((times[index] ?? 0) - (times[index - 1] ?? 0), 10_000, 'ten seconds apart');
    }
    for (const time of times) assert.equal(new Date(time).getUTCSeconds() % 10, 0);
  });

  it('computes weekday schedules as the scheduler fires them', () => {
    // Friday 2026-01-02 10:00 local time: the next weekday 09:00 runs skip the weekend.
    const from = new Date(2026, 0, 2, 10, 0, 0);
    const preview = previewSchedule('0 0 9 * * 1-5', 3, from);
    const runs = preview.nextRuns.map((text) => new Date(text));
    assert.deepEqual(
      runs.map((date) => [date.getDate(), date.getDay(), date.getHours(), date.getMinutes()]),
      [
        [5, 1, 9, 0],
        [6, 2, 9, 0],
        [7, 3, 9, 0],
      ],
    );
  });

  it('takes count up to 50, and normalizes spaces', async () => {
    const response = await get(
      `/api/v1/cron/preview?schedule=${encodeURIComponent(' 0  0 * * * * ')}&count=50`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { schedule: string; nextRuns: string[] };
    assert.equal(body.schedule, '0 0 * * * *');
    assert.equal(body.nextRuns.length, 50);
  });

  it('refuses "preview" as a task id, since it is the preview route', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/cron',
      payload: { id: 'preview', name: 'p', schedule: '0 0 9 * * *', message: 'hi', target: 'main' },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error, /"preview" is reserved/);
  });

  it('a bad schedule is a 400 naming the field', async () => {
    const response = await get(`/api/v1/cron/preview?schedule=${encodeURIComponent('0 0 25 * * *')}`);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: 'schedule: field "hour" (3rd) "25" is out of range 0-23' });
  });

  it('a missing schedule or a count out of range is a 400', async () => {
    const missing = await get('/api/v1/cron/preview');
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().error, /schedule/);
    const many = await get(`/api/v1/cron/preview?schedule=${encodeURIComponent('* * * * * *')}&count=51`);
    assert.equal(many.statusCode, 400);
    assert.match(many.json().error, /count/);
    const zero = await get(`/api/v1/cron/preview?schedule=${encodeURIComponent('* * * * * *')}&count=0`);
    assert.equal(zero.statusCode, 400);
  });

  it('is in the OpenAPI document with its query', async () => {
    const document = (await get('/api/v1/openapi.json')).json() as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    };
    const preview = document.paths['/api/v1/cron/preview']?.['get'];
    assert.ok(preview, 'GET /api/v1/cron/preview is documented');
    assert.deepEqual(preview.parameters?.map((parameter) => parameter.name).sort(), ['count', 'schedule']);
    assert.ok(document.paths['/api/v1/cron/{id}/runs']?.['get'], 'GET /api/v1/cron/{id}/runs is documented');
  });
});

describe('cron run history', () => {
  let server: TestApp;
  before(async () => {
    server = await createTestApp();
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: agentDefinition('helper'),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => server?.close());

  const createTask = async (name: string, target = 'main'): Promise<string> => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/cron',
      payload: { name, schedule: '0 0 0 1 1 *', message: 'say hi', target },
    });
    assert.equal(response.statusCode, 201, response.body);
    return (response.json() as { id: string }).id;
  };

  it('lists runs newest first, each with its outcome and reply', async () => {
    const id = await createTask('history');
    const none = await server.app.inject({ method: 'GET', url: `/api/v1/cron/${id}/runs` });
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json(), { data: [] });
    for (let run = 0; run < 2; run++) {
      const fired = await server.app.inject({ method: 'POST', url: `/api/v1/cron/${id}/run` });
      assert.equal(fired.statusCode, 200, fired.body);
    }
    const response = await server.app.inject({ method: 'GET', url: `/api/v1/cron/${id}/runs` });
    assert.equal(response.statusCode, 200);
    const runs = (response.json() as { data: Array<{ status: string; reply?: string; startedAt: string }> })
      .data;
    assert.equal(runs.length, 2);
    for (const run of runs) {
      assert.equal(run.status, 'success');
      assert.match(run.reply ?? '', /demo model/);
    }
    assert.ok(Date.parse(runs[0]?.startedAt ?? '') >= Date.parse(runs[1]?.startedAt ?? ''), 'newest first');
  });

  it('an unknown task is a 404', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/v1/cron/nope/runs' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { error: 'cron task "nope" not found' });
  });

  it('per agent: runs now and lists runs of its own tasks only', async () => {
    const id = await createTask('agent-task', 'helper');
    const fired = await server.app.inject({ method: 'POST', url: `/api/v1/agents/helper/cron/${id}/run` });
    assert.equal(fired.statusCode, 200, fired.body);
    assert.equal((fired.json() as { lastRun: { status: string } }).lastRun.status, 'success');
    const runs = await server.app.inject({ method: 'GET', url: `/api/v1/agents/helper/cron/${id}/runs` });
    assert.equal(runs.statusCode, 200);
    assert.equal((runs.json() as { data: unknown[] }).data.length, 1);
    const other = await server.app.inject({ method: 'GET', url: `/api/v1/agents/main/cron/${id}/runs` });
    assert.equal(other.statusCode, 404);
    const otherRun = await server.app.inject({ method: 'POST', url: `/api/v1/agents/main/cron/${id}/run` });
    assert.equal(otherRun.statusCode, 404);
  });
});
