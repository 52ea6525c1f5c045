// Durable inbound, clustered (two instances on one PostgreSQL schema and Redis): an instance killed
// (-9) with acknowledged messages in flight loses none of them: the other instance claims them when
// their lease runs out and answers each once, within 10 s of the kill; the platform's redeliveries
// are recognised by the instance that did not record them. An instance stopped with SIGTERM during
// turns finishes them (or hands them back) and nothing is answered twice.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack.ts';
import { startFaultModel, type FaultModel } from '../fakes/fault-model.ts';
import { slackEvents, type Delivery, type SlackEvents } from '../fakes/slack-events.ts';
import { createTestDatabase, type TestDatabase } from '../fakes/test-database.ts';
import { SIGNING_SECRET, answersTo, kill9, site, siteConfig, until, type Site } from './chaos-harness.ts';

describe('durable inbound, clustered: an instance dies or stops with messages in flight', () => {
  let slack: FakeSlack;
  let model: FaultModel;
  let database: TestDatabase;
  let place: Site;
  let events: SlackEvents;

  before(async () => {
    slack = await startFakeSlack();
    model = await startFaultModel({ latencyMs: 1_500 });
    database = await createTestDatabase('postgres', process.env);
    const prefix = `chaos-${randomBytes(5).toString('hex')}:`;
    place = await site(
      siteConfig({
        models: model.modelsConfig(),
        slack,
        extra: {
          data: { database_url: database.databaseUrl },
          cluster: { redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix },
        },
      }),
    );
    events = slackEvents(slack, 'ws', SIGNING_SECRET);
  });
  after(async () => {
    await place?.close();
    await database?.drop();
    await slack?.close();
    await model?.close();
  });

  it('kill -9 with five turns in flight: the other instance answers each once within 10 s', async () => {
    const [a, b] = await Promise.all([place.start('a'), place.start('b')]);
    assert.ok(a && b);
    const messages = [1, 2, 3, 4, 5].map((n) => ({
      channel: `DK${n}`,
      user: `U${n}`,
      text: `KILL-${n} hello`,
      ts: `1700000100.00010${n}`,
    }));
    // Held by the model until the kill (`calls` counts a call only as it is answered), so all five
    // are in flight when the instance dies.
    model.pause();
    const deliveries: Delivery[] = await Promise.all(messages.map((m) => events.deliver(() => [a.url], m)));
    for (const delivery of deliveries) assert.ok(delivery.ackedAt, delivery.outcomes.join(', '));
    await until(() => model.waiting === 5, 20_000, 'five turns reach the model');
    const killedAt = Date.now();
    await kill9(a);
    model.resume();
    // The platform delivers each once more (say, after a reconnect), now to the live instance.
    for (const [index, message] of messages.entries())
      assert.equal(await events.redeliver(b.url, deliveries[index] as Delivery, message), 200);
    await until(
      () => messages.every((m) => answersTo(slack, m.channel, m.text).length >= 1),
      30_000,
      'every message answered',
    );
    const answeredIn = Date.now() - killedAt;
    assert.ok(answeredIn < 10_000, `answered ${answeredIn} ms after the kill`);
    // A later message in each chat is answered after anything that could answer twice.
    for (const m of messages) {
      const last = { ...m, text: `LAST-${m.channel}`, ts: '1700000199.000100' };
      assert.ok((await events.deliver(() => [b.url], last)).ackedAt);
    }
    await until(
      () => messages.every((m) => answersTo(slack, m.channel, `LAST-${m.channel}`).length === 1),
      30_000,
      'the later messages answered',
    );
    for (const m of messages) assert.equal(answersTo(slack, m.channel, m.text).length, 1, m.channel);
  });

  it('SIGTERM during turns: each is answered once (finished by its instance or handed back)', async () => {
    const live = place.procs().filter((proc) => proc.alive());
    const c = await place.start('c');
    const [survivor] = live;
    assert.ok(survivor);
    const messages = [1, 2, 3, 4, 5, 6].map((n) => ({
      channel: `DT${n}`,
      user: `U${n}`,
      text: `TERM-${n} hello`,
      ts: `1700000200.00010${n}`,
    }));
    model.pause();
    for (const delivery of await Promise.all(messages.map((m) => events.deliver(() => [c.url], m))))
      assert.ok(delivery.ackedAt);
    await until(() => model.waiting === 6, 20_000, 'six turns reach the model');
    c.child.kill('SIGTERM');
    model.resume();
    await until(
      () => messages.every((m) => answersTo(slack, m.channel, m.text).length >= 1),
      40_000,
      'every message answered',
    );
    await c.exited;
    for (const m of messages) {
      const last = { ...m, text: `LAST-${m.channel}`, ts: '1700000299.000100' };
      assert.ok((await events.deliver(() => [survivor.url], last)).ackedAt);
    }
    await until(
      () => messages.every((m) => answersTo(slack, m.channel, `LAST-${m.channel}`).length === 1),
      30_000,
      'the later messages answered',
    );
    for (const m of messages) assert.equal(answersTo(slack, m.channel, m.text).length, 1, m.channel);
  });
});
