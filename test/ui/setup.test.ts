// The first-run wizard in a real browser, on a fresh server (no provider, default admin password):
// a provider that does not answer is refused, the fake one is proven and saved, the admin password
// set, authentication turned on, a Telegram bot connected, and the chat then answers signed in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, uiSuite, type UiPage } from './browser.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';

describe('web UI: first-run wizard', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Hello from the wizard model.' });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
  });
  uiSuite(
    { page: { allowErrors: [/status of 502/, /status of 4\d\d/] } },
    (suite) => ({ server, ui } = suite),
  );
  after(async () => {
    await tg?.close();
    await upstream?.close();
  });

  it('opens from /ui/ and walks through every step to a signed-in chat', async () => {
    await ui.page.goto('/ui/');
    await ui.page.waitForURL(/\/ui\/setup$/);
    const provider = ui.page.getByRole('form', { name: 'Model provider' });
    await provider.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
    await provider.getByLabel('Model').fill('fake-model');
    await provider.getByRole('button', { name: 'Test and save' }).click();
    await ui.page.getByText(/the provider did not answer; nothing was saved/).waitFor();
    assert.deepEqual(server.store.current.models.providers, {});

    await provider.getByLabel('Base URL').fill(upstream.url);
    await provider.getByLabel('API key').fill('sk-wizard-key-0123456789');
    await provider.getByRole('button', { name: 'Test and save' }).click();
    await ui.page
      .locator('[data-info="proof"]')
      .getByText(/Hello from the wizard model/)
      .waitFor();
    assert.equal(server.store.current.models.default_provider, 'default');

    const password = ui.page.getByRole('form', { name: 'Admin password' });
    await password.getByLabel('New admin password').fill('wizard-password-1');
    await password.getByLabel('Repeat the password').fill('wizard-password-1');
    await password.getByRole('button', { name: 'Set password' }).click();

    const auth = ui.page.getByRole('form', { name: 'Authentication' });
    await auth.getByText(/anyone who can reach this address/).waitFor();
    assert.equal(await auth.getByLabel('Require sign-in').isChecked(), true);
    await auth.getByRole('button', { name: 'Continue' }).click();

    const telegram = ui.page.getByRole('form', { name: 'Chat platform' });
    await telegram.getByLabel('Telegram bot token').fill(TOKEN);
    await telegram.getByLabel('Bot API address (optional, for a proxy)').fill(tg.url);
    await telegram.getByRole('button', { name: 'Connect the bot' }).click();
    await ui.page.locator('[data-info="health"]').getByText('healthy').waitFor({ timeout: 25_000 });
    assert.equal(await ui.page.locator('[data-info="address"]').innerText(), `${server.url}/ui/`);

    const security = server.store.current.security;
    assert.equal(security.requireAuth, true);
    assert.ok((await server.auth.login('admin', 'wizard-password-1')).token);
    assert.equal(server.store.current.channels.telegram?.accounts['bot1']?.dm_policy, 'pairing');
    const unauthenticated = await fetch(`${server.url}/api/v1/config`);
    assert.equal(unauthenticated.status, 401);

    // The wizard signed this tab in: the chat works and /ui/ no longer opens the wizard.
    await ui.page.getByRole('button', { name: 'Start chatting' }).click();
    await ui.page.waitForURL(/\/ui\/chat/);
    const status = await fetch(`${server.url}/api/v1/setup`, {
      headers: { authorization: `Bearer ${(await server.auth.login('admin', 'wizard-password-1')).token}` },
    });
    assert.equal(((await status.json()) as { needed: boolean }).needed, false);
    await ui.page.getByRole('textbox', { name: /message/i }).fill('hi there');
    await ui.page.keyboard.press('Enter');
    await ui.page.getByText('Hello from the wizard model.').first().waitFor({ timeout: 20_000 });
    assertNoConsoleErrors(ui);
  });
});
