// Clustered, a session is compacted by one instance at a time: two instances asked to compact the
// same session at once take the session's Redis lock in turn, so exactly one folds it (after one
// memory flush) and the other finds nothing left to fold.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { FLUSH_INSTRUCTIONS } from '../../src/turns/memory-flush.ts';
import { api, clusterSection, deployment, type Deployment, type Instance } from './instances.ts';

describe('clustered compaction', () => {
  let upstream: FakeUpstream;
  let cluster: Deployment;
  let a: Instance;
  let b: Instance;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Plain answer.' });
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\nmodels:\n  default_provider: fake\n  providers:\n    fake:\n` +
        `      base_url: ${upstream.url}\n      model: m\n` +
        `agents:\n  defaults:\n    compaction:\n      keep_recent_tokens: 10\n${clusterSection(prefix)}`,
    );
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  });
  after(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it('exactly one of two instances compacts a session asked of both at once', async () => {
    for (const [index, content] of ['one', 'two', 'three', 'four'].entries()) {
      const instance = index % 2 === 0 ? a : b;
      const answer = await api(instance, 'POST', '/api/v1/chat/completions', {
        model: 'main',
        sessionId: 'shared',
        messages: [{ role: 'user', content }],
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
    }
    const path = '/api/v1/agents/main/sessions/shared/compact';
    const answers = await Promise.all([api(a, 'POST', path), api(b, 'POST', path)]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    const results = answers.map(
      (answer) => answer.json as { compacted: boolean; reason?: string; flushed: boolean },
    );
    assert.equal(results.filter((result) => result.compacted).length, 1, JSON.stringify(results));
    assert.deepEqual(
      results.filter((result) => !result.compacted).map((result) => [result.reason, result.flushed]),
      [['nothing to fold', false]],
    );
    const flushes = upstream.requests.filter((body) => {
      const messages = body['messages'] as Array<{ role: string; content: unknown }>;
      return messages[0]?.content === FLUSH_INSTRUCTIONS && messages.length === 2;
    });
    assert.equal(flushes.length, 1, 'one memory flush in all');
    const messages = await api(a, 'GET', '/api/v1/agents/main/sessions/shared/messages?size=100');
    const views = (messages.json as { data: Array<{ role: string; folded?: boolean }> }).data;
    assert.equal(views.filter((view) => view.role === 'summary').length, 1);
    assert.equal(views.filter((view) => view.role === 'user').length, 4);
  });
});
