// Three real instances on loopback sharing one config file, one data root (with its libsql file)
// and one Redis: changes made through one are live on the others, definition writes are serialized
// across instances, and a conversation goes on wherever its next request lands, one turn at a time.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentDefinition, chainDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { api, clusterSection, deployment, eventually, type Deployment, type Instance } from './instances.ts';

function texts(request: Record<string, unknown>, role: string): string[] {
  const messages = request['messages'] as Array<{ role: string; content: unknown }>;
  return messages.filter((m) => m.role === role).map((m) => String(m.content));
}

function chat(instance: Instance, model: string, content: string, sessionId?: string) {
  return api(instance, 'POST', '/api/v1/chat/completions', {
    model,
    messages: [{ role: 'user', content }],
    ...(sessionId ? { sessionId } : {}),
  });
}

describe('clustered mode: three instances on one Redis', () => {
  let upstream: FakeUpstream;
  let cluster: Deployment;
  let a: Instance;
  let b: Instance;
  let c: Instance;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Noted.' });
    cluster = await deployment(
      (prefix) =>
        `server:\n  host: 127.0.0.1\nmodels:\n  default_provider: fake\n  providers:\n    fake:\n` +
        `      base_url: ${upstream.url}\n      model: m\n${clusterSection(prefix)}`,
    );
    [a, b, c] = await Promise.all([cluster.start('a'), cluster.start('b'), cluster.start('c')]);
  });
  after(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it('reports each instance ready, with its id, Redis and the database reachable', async () => {
    for (const instance of [a, b, c]) {
      const ready = await api(instance, 'GET', '/ready');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json, {
        ready: true,
        instance: instance.name,
        mode: 'clustered',
        checks: { database: 'ok', redis: 'ok', disk: 'ok' },
      });
    }
    assert.match(a.output(), /"instance":"a"/);
  });

  it('a provider added through one instance is live on the other two within a second', async () => {
    const created = await api(a, 'POST', '/api/v1/config/models/providers', {
      id: 'second',
      base_url: upstream.url,
      model: 'other-model',
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    for (const other of [b, c]) {
      const took = await eventually(
        async () => {
          const list = await api(other, 'GET', '/api/v1/config/models/providers');
          return (list.json as Array<{ id: string }>).some((p) => p.id === 'second');
        },
        1_000,
        `provider seen by ${other.name}`,
      );
      assert.ok(took < 1_000);
    }
    const removed = await api(c, 'DELETE', '/api/v1/config/models/providers/second');
    assert.equal(removed.status, 200, JSON.stringify(removed.json));
    await eventually(
      async () =>
        !((await api(a, 'GET', '/api/v1/config/models/providers')).json as Array<{ id: string }>).some(
          (p) => p.id === 'second',
        ),
      1_000,
      'provider removal seen by a',
    );
  });

  it('an agent created on one instance and changed on another answers with the change on the third', async () => {
    const created = await api(
      a,
      'POST',
      '/api/v1/agents',
      agentDefinition('helper', { systemPrompt: 'Version one.' }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.json));
    await eventually(
      async () => (await api(b, 'GET', '/api/v1/agents/helper')).status === 200,
      1_000,
      'agent on b',
    );
    const updated = await api(
      b,
      'PUT',
      '/api/v1/agents/helper',
      agentDefinition('helper', { systemPrompt: 'Version two.' }),
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.json));
    await eventually(
      async () => {
        const seen = await api(c, 'GET', '/api/v1/agents/helper');
        return JSON.stringify(seen.json).includes('Version two.') && seen.json.status.loaded === true;
      },
      1_000,
      'update on c',
    );
    const answer = await chat(c, 'helper', 'hello');
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const system = texts(upstream.requests.at(-1) as Record<string, unknown>, 'system').join('\n');
    assert.match(system, /Version two\./);

    const removed = await api(c, 'DELETE', '/api/v1/agents/helper');
    assert.equal(removed.status, 200, JSON.stringify(removed.json));
    await eventually(
      async () => (await api(a, 'GET', '/api/v1/agents/helper')).status === 404,
      1_000,
      'gone on a',
    );
    assert.equal((await chat(a, 'helper', 'hello')).status, 404);
  });

  it('the same chain created through two instances at once is created once; the other gets 409', async () => {
    for (let round = 0; round < 4; round++) {
      const id = `race-${round}`;
      const answers = await Promise.all(
        [a, b].map((instance) =>
          api(
            instance,
            'POST',
            '/api/v1/rules',
            chainDefinition(id, [{ id: 'wait', type: 'delay', configuration: { delayMs: 1 } }], [], {
              name: `from ${instance.name}`,
            }),
          ),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [201, 409],
        JSON.stringify(answers.map((answer) => answer.json)),
      );
    }
  });

  it('concurrent updates of one chain through two instances leave every instance on the last one written', async () => {
    const body = (name: string) =>
      chainDefinition('shared', [{ id: 'wait', type: 'delay', configuration: { delayMs: 1 } }], [], { name });
    assert.equal((await api(a, 'POST', '/api/v1/rules', body('start'))).status, 201);
    await eventually(async () => (await api(b, 'GET', '/api/v1/rules/shared')).status === 200, 1_000, 'on b');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        api(n % 2 ? a : b, 'PUT', '/api/v1/rules/shared', body(`write ${n}`)),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(10).fill(200),
    );
    const file = JSON.parse(await readFile(join(cluster.dir, 'data', 'rules', 'shared.json'), 'utf8'));
    assert.match(file.ruleChain.name, /^write \d$/);
    for (const instance of [a, b, c]) {
      await eventually(
        async () =>
          (await api(instance, 'GET', '/api/v1/rules/shared')).json.ruleChain.name === file.ruleChain.name,
        1_000,
        `${instance.name} shows the file's version`,
      );
    }
  });

  it('a conversation started on one instance continues on the others', async () => {
    assert.equal((await chat(a, 'main', 'My name is Ada.', 'moving')).status, 200);
    assert.equal((await chat(b, 'main', 'I live in London.', 'moving')).status, 200);
    const answer = await chat(c, 'main', 'Where do I live?', 'moving');
    assert.equal(answer.status, 200);
    assert.deepEqual(texts(upstream.requests.at(-1) as Record<string, unknown>, 'user'), [
      'My name is Ada.',
      'I live in London.',
      'Where do I live?',
    ]);
    assert.deepEqual(texts(upstream.requests.at(-1) as Record<string, unknown>, 'assistant'), [
      'Noted.',
      'Noted.',
    ]);
  });

  it('two turns of one session sent to two instances at once run one after the other', async () => {
    const slow = await startFakeUpstream({ reply: 'Slowly.', latencyMs: 400 });
    try {
      const created = await api(
        a,
        'POST',
        '/api/v1/agents',
        agentDefinition('slow', { url: slow.url, model: 'm' }),
      );
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await eventually(
        async () => (await api(b, 'GET', '/api/v1/agents/slow')).status === 200,
        1_000,
        'on b',
      );
      const answers = await Promise.all([chat(a, 'slow', 'one', 'serial'), chat(b, 'slow', 'two', 'serial')]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200],
      );
      assert.equal(slow.requests.length, 2);
      // The turn that waited saw the other's question and answer in its history.
      const [first, second] = slow.requests as [Record<string, unknown>, Record<string, unknown>];
      assert.equal(texts(first, 'user').length, 1);
      assert.deepEqual(texts(second, 'user').slice(0, 1), texts(first, 'user'));
      assert.equal(texts(second, 'user').length, 2);
      assert.deepEqual(texts(second, 'assistant'), ['Slowly.']);
    } finally {
      await slow.close();
    }
  });
});
