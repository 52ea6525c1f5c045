// Login in a real browser: with requireAuth on, the UI asks for a login, keeps the token for the
// tab, and a 401 (an expired or revoked token) returns to the login page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: login', () => {
  let ui: UiPage;

  uiSuite(
    {
      server: { config: { security: { requireAuth: true, users: { admin: 'a-long-test-password' } } } },
      // The 401s and the failed login are provoked on purpose.
      page: { allowErrors: [/status of 401/] },
    },
    (suite) => ({ ui } = suite),
  );

  it('shows the login page when the server requires auth, and returns to the page asked for', async () => {
    await ui.page.goto('/ui/agents');
    await ui.page.waitForURL(/\/ui\/login$/);
    await screenshotAllModes(ui, 'login');
    await ui.page.getByLabel('Password').fill('wrong-password');
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.getByRole('alert').filter({ hasText: 'invalid username or password' }).waitFor();
    await ui.page.getByLabel('Password').fill('a-long-test-password');
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.waitForURL(/\/ui\/agents$/);
    await ui.page.locator('[data-agent="main"]').waitFor();
    assert.ok(
      await ui.page.evaluate('sessionStorage.getItem("agent-service.token") !== null'),
      'kept per tab',
    );
    await ui.page.getByRole('link', { name: 'Chat', exact: true }).click();
    await ui.page.waitForURL(/\/ui\/chat\/main\//);
  });

  it('a 401 (a bad or expired token) returns to the login page', async () => {
    await ui.page.evaluate('sessionStorage.setItem("agent-service.token", "not-a-valid-token")');
    await ui.page.goto('/ui/agents');
    await ui.page.waitForURL(/\/ui\/login$/);
    assert.ok(await ui.page.evaluate('sessionStorage.getItem("agent-service.token") === null'));
  });

  it('signing out forgets the token', async () => {
    await ui.page.getByLabel('Password').fill('a-long-test-password');
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.waitForURL(/\/ui\/agents$/);
    await ui.page.getByRole('button', { name: 'Sign out' }).click();
    await ui.page.waitForURL(/\/ui\/login$/);
    assert.ok(await ui.page.evaluate('sessionStorage.getItem("agent-service.token") === null'));
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
