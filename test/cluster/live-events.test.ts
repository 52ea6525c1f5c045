// Clustered mode: a WebSocket subscriber on one instance sees the turns that run on another, through
// the live-event channel on Redis; an instance's own events reach it once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { connect } from '../observability/ws-client.ts';
import { api, clusterSection, deployment, type Deployment, type Instance } from './instances.ts';

describe('clustered mode: live events across instances', () => {
  let upstream: FakeUpstream;
  let cluster: Deployment;
  let a: Instance;
  let b: Instance;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Answered on a.' });
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\nmodels:\n  default_provider: fake\n  providers:\n    fake:\n` +
        `      base_url: ${upstream.url}\n      model: m\n${clusterSection(prefix)}`,
    );
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  });
  after(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it('a subscriber on instance b sees a turn that runs on instance a, once, in order', async () => {
    const onB = await connect(`${b.url.replace('http://', 'ws://')}/api/v1/ws?agentId=main`);
    const onA = await connect(`${a.url.replace('http://', 'ws://')}/api/v1/ws?agentId=main`);
    const answer = await api(a, 'POST', '/api/v1/chat/completions', {
      model: 'main',
      messages: [{ role: 'user', content: 'hello' }],
    });
    assert.equal(answer.status, 200);
    for (const client of [onB, onA]) {
      const events = await client.until((list) => list.some((e) => e.type === 'done'), 'the remote turn');
      const types = events.filter((e) => e.type !== 'subscribed').map((e) => e.type);
      assert.equal(types[0], 'status');
      assert.equal(types.at(-1), 'done');
      assert.equal(types.filter((type) => type === 'done').length, 1, 'delivered once');
      assert.equal(events.find((e) => e.type === 'done')?.payload?.['content'], 'Answered on a.');
    }
    assert.equal(
      onB.events.find((e) => e.type === 'done')?.taskId,
      onA.events.find((e) => e.type === 'done')?.taskId,
    );
    onA.close();
    onB.close();
  });
});
