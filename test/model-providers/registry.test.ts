import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { ModelRegistry } from '../../src/model-providers/registry.ts';
import { startFakeUpstream } from '../fakes/fake-upstream.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { collect, textOf, userRequest } from './stream-helpers.ts';

describe('model registry', () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;

  before(async () => {
    primary = await startFakeUpstream({ reply: 'from primary' });
    backup = await startFakeUpstream({ reply: 'from backup' });
  });
  after(async () => {
    await primary.close();
    await backup.close();
  });

  const config = () => ({
    default_provider: 'backup',
    providers: {
      primary: {
        base_url: primary.url,
        api_key: 'key-primary',
        model: 'big',
        models: [{ name: 'big-v2', alias: 'big' }],
      },
      backup: { base_url: backup.url, model: 'small' },
    },
  });

  it('gives the demo provider when no provider is configured', () => {
    const registry = new ModelRegistry({ providers: {} });
    assert.equal(registry.isDemo(), true);
    assert.equal(registry.get().demo, true);
    assert.equal(registry.get('').id, 'demo');
    assert.equal(registry.resolve({ url: '', key: '' }).id, 'demo');
  });

  it('gives the default provider for no id, and the first one when no default is set', () => {
    const registry = new ModelRegistry(config());
    assert.equal(registry.isDemo(), false);
    assert.equal(registry.get().id, 'backup');
    assert.equal(registry.get('primary').id, 'primary');
    const { default_provider: _unused, ...withoutDefault } = config();
    assert.equal(new ModelRegistry(withoutDefault).get().id, 'primary');
  });

  it('refuses an unknown provider id with not-found', () => {
    const registry = new ModelRegistry(config());
    assert.throws(
      () => registry.get('missing'),
      (error: unknown) =>
        error instanceof AppError &&
        error.kind === 'not-found' &&
        error.message === 'model provider "missing" is not configured',
    );
  });

  it('streams through the configured provider with its default model and alias', async () => {
    const registry = new ModelRegistry(config());
    assert.equal(textOf(await collect(registry.get('primary').stream(userRequest('hi')))), 'from primary');
    assert.equal(primary.requests.at(-1)?.model, 'big-v2');
    assert.equal(primary.lastHeaders?.authorization, 'Bearer key-primary');
  });

  it('fails over to the listed providers, asking each for its own model', async () => {
    const registry = new ModelRegistry(
      {
        providers: {
          primary: { ...config().providers.primary, failover: ['backup'] },
          backup: config().providers.backup,
        },
      },
      { retryBaseMs: 1, maxRetries: 0 },
    );
    primary.failNext('error500', 1);
    const events = await collect(registry.get('primary').stream(userRequest('hi', { model: 'big' })));
    assert.equal(textOf(events), 'from backup');
    assert.equal(backup.requests.at(-1)?.model, 'small');
  });

  it('reports failover entries that name unknown providers', () => {
    const registry = new ModelRegistry({
      providers: { primary: { ...config().providers.primary, failover: ['nope'] } },
    });
    assert.deepEqual(registry.problems(), ['model provider "primary" fails over to unknown provider "nope"']);
    assert.equal(registry.get().id, 'primary');
  });

  it('resolves an explicit url and key to the matching configured provider', () => {
    const registry = new ModelRegistry(config());
    assert.equal(registry.resolve({ url: `${primary.url}/`, key: 'key-primary' }), registry.get('primary'));
    assert.equal(registry.resolve({}), registry.get('backup'));
  });

  it('builds and caches a provider for an unconfigured url and key', async () => {
    const registry = new ModelRegistry(config());
    const custom = registry.resolve({ url: primary.url, key: 'another-key', model: 'tiny' });
    assert.equal(custom.id, `custom:${new URL(primary.url).host}`);
    assert.equal(registry.resolve({ url: primary.url, key: 'another-key', model: 'tiny' }), custom);
    assert.notEqual(registry.resolve({ url: primary.url, key: 'third-key', model: 'tiny' }), custom);
    await collect(custom.stream(userRequest('hi')));
    assert.equal(primary.requests.at(-1)?.model, 'tiny');
    assert.equal(primary.lastHeaders?.authorization, 'Bearer another-key');
    assert.throws(() => registry.resolve({ url: 'not a url' }), AppError);
  });

  it('swaps in a new configuration on replace', () => {
    const registry = new ModelRegistry(config());
    registry.replace({ providers: {} });
    assert.equal(registry.isDemo(), true);
    assert.throws(() => registry.get('primary'), AppError);
    registry.replace(config());
    assert.deepEqual(registry.ids(), ['primary', 'backup']);
  });
});
