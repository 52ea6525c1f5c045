// `global` in scripts, expressions and configuration variables: the config's properties, without
// any secret (a provider's api_key stays with the AI nodes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestApp } from '../fakes/app-harness.ts';
import { chainDefinition } from '../fakes/builders.ts';

describe('global properties', () => {
  it('scripts and variables see the providers without their keys', async () => {
    const t = await createTestApp({
      config: {
        models: {
          default_provider: 'p1',
          providers: {
            p1: {
              base_url: 'https://user:pw-secret@llm.example.test/v1',
              api_key: 'sk-global-secret-1',
              model: 'm1',
            },
          },
        },
      },
    });
    try {
      const chain = chainDefinition('peek', [
        {
          id: 'read',
          type: 'jsTransform',
          configuration: {
            jsScript:
              "var p = global.models.providers.p1; return {msg: {model: p.model, key: p.api_key === undefined ? 'none' : p.api_key, url: p.base_url, named: '${global.models.default_provider}'}, metadata: metadata, msgType: msgType};",
          },
        },
      ]);
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/rules', payload: chain });
      assert.equal(created.statusCode, 201, created.body);
      const run = await t.app.inject({ method: 'POST', url: '/api/v1/rules/peek/execute', payload: {} });
      assert.equal(run.statusCode, 200, run.body);
      assert.deepEqual(run.json(), {
        model: 'm1',
        key: 'none',
        url: 'https://***@llm.example.test/v1',
        named: 'p1',
      });
      assert.doesNotMatch(run.body, /sk-global-secret-1|pw-secret/);
    } finally {
      await t.close();
    }
  });
});
