// The new user's path, in a real browser on a fresh server: the demo model answers at first; a
// provider added in Settings (pointing at the fake upstream) becomes the default; then `main`
// answers with the provider's reply. Nothing but the UI touches the config file.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

const ANSWER = 'Hello from the fake upstream, new user.';

describe('web UI: a new user connects a provider and chats', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;
  let configBefore: string;

  before(async () => {
    upstream = await startFakeUpstream({ reply: ANSWER });
  });
  uiSuite(
    {
      setUp: async (started) => {
        configBefore = await readFile(started.configPath, 'utf8');
      },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(() => upstream?.close());

  const composer = () => ui.page.getByRole('textbox', { name: 'Message' });

  it('a fresh server answers with the demo model', async () => {
    await ui.page.goto('/ui/');
    // No provider and the default admin password: /ui/ opens the first-run wizard, skipped here.
    await ui.page.waitForURL(/\/ui\/setup$/);
    await ui.page.getByRole('button', { name: 'Skip for now' }).click();
    await ui.page.waitForURL(/\/ui\/chat\/main\//);
    await composer().fill('hello');
    await composer().press('Enter');
    await ui.page.getByText('[demo model]').first().waitFor();
    assert.equal(upstream.requestCount, 0);
  });

  it('adds a provider in Settings; being the first, it is the default', async () => {
    await ui.page.getByRole('link', { name: 'Settings' }).click();
    await ui.page.waitForURL(/\/ui\/settings$/);
    await ui.page.getByText('No provider yet').waitFor();
    await ui.page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByLabel('ID').fill('myprovider');
    await dialog.getByLabel('Display name').fill('My provider');
    await dialog.getByLabel('Base URL').fill(upstream.url);
    await dialog.getByLabel('Model').fill('small-model');
    await dialog.getByLabel('API key').fill('sk-new-user-key-0123456789');
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    const row = ui.page.locator('[data-provider="myprovider"]');
    await row.locator('.badge', { hasText: 'default' }).waitFor();
    await ui.page.getByRole('button', { name: 'Test myprovider' }).click();
    await row.locator('.badge', { hasText: /^ok/ }).waitFor();
    assert.equal(await ui.page.getByText('No provider yet').count(), 0);
    await screenshotAllModes(ui, 'new-user-settings');
  });

  it('main now answers with the provider', async () => {
    await ui.page.getByRole('link', { name: 'Chat', exact: true }).click();
    await ui.page.waitForURL(/\/ui\/chat\/main\//);
    await ui.page
      .getByRole('button', { name: /New conversation/ })
      .first()
      .click();
    await composer().fill('who are you?');
    await composer().press('Enter');
    await ui.page.locator('.markdown', { hasText: ANSWER }).waitFor();
    const sent = upstream.requests.at(-1) as {
      model: string;
      messages: Array<{ role: string; content: unknown }>;
    };
    assert.equal(sent.model, 'small-model');
    assert.ok(JSON.stringify(sent.messages).includes('who are you?'));
    await screenshotAllModes(ui, 'new-user-chat');
  });

  it('the UI wrote the provider into the config file, which nothing else touched', async () => {
    const config = parse(await readFile(server.configPath, 'utf8')) as {
      models: {
        default_provider: string;
        providers: Record<string, { base_url: string; model: string; api_key: string }>;
      };
    };
    assert.equal(config.models.default_provider, 'myprovider');
    assert.deepEqual(config.models.providers['myprovider'], {
      name: 'My provider',
      base_url: upstream.url,
      model: 'small-model',
      api_key: 'sk-new-user-key-0123456789',
    });
    assert.doesNotMatch(configBefore, /myprovider/);
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
