// The Settings page in a real browser, signed in on a server that requires auth: providers (add,
// edit, default, test connection, write-only key, delete), the API key (show, rotate), the
// password, and the server's information.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

const PASSWORD = 'a-long-test-password';
const PROVIDER_KEY = 'sk-settings-provider-key-0123456789';

describe('web UI: Settings', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  const providers = async () =>
    (
      await server.app.inject({
        method: 'GET',
        url: '/api/v1/config/models',
        headers: { authorization: `Bearer ${await token()}` },
      })
    ).json() as {
      default: string;
      providers: Array<{ id: string; name: string; base_url: string; model: string; hasApiKey: boolean }>;
    };
  const token = async () => (await server.auth.login('admin', PASSWORD)).token;
  const row = (id: string) => ui.page.locator(`[data-provider="${id}"]`);

  before(async () => {
    upstream = await startFakeUpstream();
  });
  uiSuite(
    {
      server: { config: { security: { requireAuth: true, users: { admin: PASSWORD } } } },
      // The first visit answers 401 before the login, on purpose.
      page: { allowErrors: [/status of 401/] },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(() => upstream?.close());

  it('signs in and shows the demo model notice while no provider exists', async () => {
    await ui.page.goto('/ui/settings');
    await ui.page.waitForURL(/\/ui\/login$/);
    await ui.page.getByLabel('Password').fill(PASSWORD);
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.waitForURL(/\/ui\/settings$/);
    await ui.page.getByText('No provider yet: agents answer with the offline demo model.').waitFor();
  });

  it('adds a provider with a write-only key, which becomes the default', async () => {
    await ui.page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByLabel('ID').fill('fake');
    await dialog.getByLabel('Display name').fill('Fake upstream');
    await dialog.getByLabel('Base URL').fill(upstream.url);
    await dialog.getByLabel('Model').fill('fake-model');
    await dialog.getByLabel('API key').fill(PROVIDER_KEY);
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await row('fake').locator('.badge', { hasText: 'default' }).waitFor();
    await row('fake').locator('.badge', { hasText: 'set' }).waitFor();
    assert.ok(!(await ui.page.content()).includes(PROVIDER_KEY));
    const models = await providers();
    assert.equal(models.default, 'fake');
    assert.equal(models.providers[0]?.hasApiKey, true);
    assert.match(await readFile(server.configPath, 'utf8'), new RegExp(PROVIDER_KEY));
  });

  it('tests the connection: one tiny request with the key', async () => {
    const before = upstream.requestCount;
    await ui.page.getByRole('button', { name: 'Test fake' }).click();
    await row('fake')
      .locator('.badge', { hasText: /^ok · \d+ ms$/ })
      .waitFor();
    assert.equal(upstream.requestCount, before + 1);
    assert.equal(upstream.lastHeaders?.authorization, `Bearer ${PROVIDER_KEY}`);
  });

  it('a failing provider shows why, without the key', async () => {
    upstream.failNext('error500', 1);
    await ui.page.getByRole('button', { name: 'Test fake' }).click();
    await row('fake').locator('.node-log-error', { hasText: 'model provider "fake" failed' }).waitFor();
    assert.ok(!(await ui.page.content()).includes(PROVIDER_KEY));
  });

  it('adds a second provider, makes it the default, edits it keeping its key, deletes it', async () => {
    await ui.page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByLabel('ID').fill('backup');
    await dialog.getByLabel('Base URL').fill(upstream.url);
    await dialog.getByLabel('Model').fill('backup-model');
    await dialog.getByLabel('API key').fill('sk-backup-key-0123456789');
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await row('backup').locator('.badge', { hasText: 'set' }).waitFor();
    assert.equal(await row('backup').locator('.badge', { hasText: 'default' }).count(), 0);
    await ui.page.getByRole('button', { name: 'Make backup the default' }).click();
    await row('backup').locator('.badge', { hasText: 'default' }).waitFor();
    assert.equal((await providers()).default, 'backup');
    await screenshotAllModes(ui, 'settings-providers');

    await ui.page.getByRole('button', { name: 'Edit backup' }).click();
    const edit = ui.page.getByRole('dialog', { name: 'Edit provider backup' });
    assert.equal(await edit.getByLabel(/API key/).inputValue(), '');
    await edit.getByLabel('Model').fill('backup-model-2');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row('backup').getByText('backup-model-2').waitFor();
    assert.match(await readFile(server.configPath, 'utf8'), /sk-backup-key-0123456789/, 'the key was kept');

    await ui.page.getByRole('button', { name: 'Make fake the default' }).click();
    await row('fake').locator('.badge', { hasText: 'default' }).waitFor();
    await ui.page.getByRole('button', { name: 'Delete backup' }).click();
    await ui.page
      .getByRole('dialog', { name: 'Delete provider' })
      .getByRole('button', { name: 'Delete provider' })
      .click();
    await row('backup').waitFor({ state: 'detached' });
    assert.deepEqual(
      (await providers()).providers.map((provider) => provider.id),
      ['fake'],
    );
  });

  it('shows the API key on demand and rotates it after confirmation', async () => {
    const card = ui.page.getByRole('region', { name: 'API key' });
    assert.equal(await card.getByLabel('API key value').count(), 0, 'hidden until asked');
    await card.getByRole('button', { name: 'Show key' }).click();
    const first = (await card.getByLabel('API key value').textContent()) ?? '';
    assert.ok(first.length >= 16);
    await card.getByRole('button', { name: 'Rotate key' }).click();
    await ui.page
      .getByRole('dialog', { name: 'Rotate API key' })
      .getByRole('button', { name: 'Rotate key' })
      .click();
    await ui.page.locator('.toast-success', { hasText: 'A new API key was made' }).waitFor();
    const second = (await card.getByLabel('API key value').textContent()) ?? '';
    assert.notEqual(second, first);
    const old = await server.app.inject({
      method: 'GET',
      url: '/api/v1/agents',
      headers: { authorization: `Bearer ${first}` },
    });
    assert.equal(old.statusCode, 401, 'the old key no longer works');
    const fresh = await server.app.inject({
      method: 'GET',
      url: '/api/v1/agents',
      headers: { authorization: `Bearer ${second}` },
    });
    assert.equal(fresh.statusCode, 200);
  });

  it('shows the server information', async () => {
    const card = ui.page.getByRole('region', { name: 'Server' });
    await card.locator('[data-info="address"]').waitFor();
    // The test app has no package version of its own; the UI shows what the OpenAPI document says.
    const document = (
      await server.app.inject({
        method: 'GET',
        url: '/api/v1/openapi.json',
        headers: { authorization: `Bearer ${await token()}` },
      })
    ).json();
    assert.equal(await card.locator('[data-info="version"]').textContent(), document.info.version);
    assert.match((await card.locator('[data-info="address"]').textContent()) ?? '', /^127\.0\.0\.1:\d+$/);
    assert.match((await card.locator('[data-info="data-root"]').textContent()) ?? '', /data$/);
    assert.match((await card.locator('[data-info="auth"]').textContent()) ?? '', /^required/);
    await screenshotAllModes(ui, 'settings-account');
  });

  it('changes the password: the old one stops working', async () => {
    const card = ui.page.getByRole('region', { name: 'Password' });
    await card.getByLabel('Current password').fill(PASSWORD);
    await card.getByLabel('New password', { exact: true }).fill('another-long-password');
    await card.getByLabel('Repeat the new password').fill('different-password');
    await card.getByRole('button', { name: 'Change password' }).click();
    await card.getByRole('alert').filter({ hasText: 'The two new passwords differ.' }).waitFor();
    await card.getByLabel('Repeat the new password').fill('another-long-password');
    await card.getByRole('button', { name: 'Change password' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Password changed' }).waitFor();
    await assert.rejects(server.auth.login('admin', PASSWORD));
    assert.ok((await server.auth.login('admin', 'another-long-password')).token);
  });

  it('the password change ended the session: signing in again takes the new password, at 375 px too', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.reload();
    await ui.page.waitForURL(/\/ui\/login$/);
    await ui.page.getByLabel('Password').fill('another-long-password');
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.waitForURL(/\/ui\/settings$/);
    await row('fake').waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
