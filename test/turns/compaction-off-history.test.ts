// With compaction off, the model still sees each earlier message once and the new one once: the
// user message stored at the turn's start must not come back as history too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { createScriptedModel } from '../fakes/scripted-model.ts';

describe('a turn of an agent with compaction off', () => {
  const model = createScriptedModel({ window: 1_000_000 });
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      config: {
        engine: { model_workers: 0 },
        models: {
          default_provider: 'scripted',
          providers: {
            scripted: { base_url: 'http://127.0.0.1:9/v1', model: 'scripted-1', context_window: 1_000_000 },
          },
        },
      },
      services: { models: { fetch: model.fetch, maxRetries: 0 } },
    });
    const definition = agentDefinition('plain', { systemPrompt: 'You are plain.', tools: [] });
    (definition.metadata.nodes[0] as { configuration: Record<string, unknown> }).configuration['compaction'] =
      { enabled: false };
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/agents', payload: definition });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(() => t.close());

  it('sends every user message once', async () => {
    const session = {
      key: 'agent:plain:channel:api:scope:per_peer:once',
      info: { agentId: 'plain', channel: 'api', scope: 'per_peer' as const },
    };
    for (const input of ['first question', 'second question']) {
      await t.services.turns.complete({
        agentId: 'plain',
        input,
        session,
        signal: AbortSignal.timeout(30_000),
      });
    }
    const last = model.requests.filter((request) => request.kind === 'turn').at(-1);
    assert.ok(last);
    const users = (last.body['messages'] as Array<{ role: string; content: unknown }>)
      .filter((message) => message.role === 'user')
      .map((message) =>
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
      );
    assert.deepEqual(users, ['first question', 'second question']);
  });
});
