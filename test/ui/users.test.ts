// Users, the requireAuth switch and DM pairing in a real browser: an admin adds a member, disables,
// re-enables, resets and deletes users; the switch is refused while the admin password is the
// default and works after it changes; a pairing code sent by the fake Telegram bot is approved on
// the Channels page and the sender then chats with the agent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/fake-telegram.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, uiSuite, type UiPage, pageUntil } from './browser.ts';

const TOKEN = '123456:SECRET-token-abcdefghijklmnop';

describe('web UI: users, security switch and pairing', () => {
  let upstream: FakeUpstream;
  let tg: FakeTelegram;
  let server: TestApp;
  let ui: UiPage;
  const user = (name: string) => ui.page.locator(`[data-user="${name}"]`);

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Hello from the agent.' });
    tg = await startFakeTelegram({ tokens: [TOKEN] });
  });
  uiSuite(
    {
      server: () => ({
        config: {
          models: upstream.modelsConfig(),
          channels: {
            telegram: {
              enabled: true,
              accounts: { bot1: { app_secret: TOKEN, api_base: tg.url, dm_policy: 'pairing' } },
            },
          },
        },
      }),
      page: { allowErrors: [/status of 409/, /status of 401/] },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(async () => {
    await tg?.close();
    await upstream?.close();
  });

  it('refuses the requireAuth switch while the admin password is the default', async () => {
    await ui.page.goto('/ui/settings');
    const card = ui.page.getByRole('region', { name: 'Security' });
    await card.locator('[data-info="default-password"]').waitFor();
    const toggle = card.getByRole('switch', { name: 'Require sign-in' });
    assert.equal(await toggle.isChecked(), false);
    await toggle.click();
    await card
      .getByText(/admin password is still the default one/)
      .first()
      .waitFor();
    await pageUntil(ui.page, "!document.querySelector('[role=switch]').checked");
    assert.equal(server.store.current.security.requireAuth, false);
  });

  it('adds a member with one agent, disables, enables, resets and deletes it', async () => {
    await ui.page.goto('/ui/users');
    await user('admin').waitFor();
    await ui.page.getByRole('button', { name: 'Add user' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add a user' });
    await dialog.getByLabel('Name').fill('ann');
    await dialog.getByLabel('Password').fill('ann-password-1');
    await dialog.getByLabel('main').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await user('ann').getByText('member · agents: main').waitFor();
    const ann = await server.auth.login('ann', 'ann-password-1');
    const principal = await server.auth.resolveBearer(ann.token);
    assert.deepEqual(principal, {
      kind: 'user',
      username: 'ann',
      via: 'jwt',
      role: 'member',
      agents: ['main'],
    });

    await user('ann').getByRole('button', { name: 'Disable' }).click();
    await user('ann').locator('.badge', { hasText: 'disabled' }).waitFor();
    assert.equal(
      await server.auth.resolveBearer(ann.token),
      undefined,
      'a disabled user is signed out at once',
    );
    await user('ann').getByRole('button', { name: 'Enable' }).click();
    await user('ann').getByRole('button', { name: 'Disable' }).waitFor();
    assert.ok(await server.auth.resolveBearer(ann.token));

    await user('ann').getByRole('button', { name: 'Reset password' }).click();
    const prompt = ui.page.getByRole('dialog', { name: 'Reset the password of ann' });
    await prompt.getByRole('textbox').fill('ann-password-2');
    await prompt.getByRole('button', { name: 'Reset password' }).click();
    await ui.page.getByText(/Password of ann reset/).waitFor();
    assert.equal(await server.auth.resolveBearer(ann.token), undefined, 'the old token is void');
    await server.auth.login('ann', 'ann-password-2');

    await user('ann').getByRole('button', { name: 'Delete' }).click();
    await ui.page
      .getByRole('dialog', { name: 'Delete user' })
      .getByRole('button', { name: 'Delete user' })
      .click();
    await user('ann').waitFor({ state: 'detached' });
    await assert.rejects(server.auth.login('ann', 'ann-password-2'), /invalid username or password/);
  });

  it('approves a pairing code on the Channels page; the Telegram sender then chats', async () => {
    tg.pushMessage({ chatId: 77, fromId: 77, text: 'hello?' });
    const [sent] = await tg.waitForCalls('sendMessage', 1, 20_000);
    const code = /pairing code is ([A-Z0-9]{8})/.exec(String(sent?.params['text']))?.[1];
    assert.ok(code);
    await ui.page.goto('/ui/channels');
    const request = ui.page.locator(`[data-pairing="${code}"]`);
    await request.getByText('telegram/bot1 · sender 77').waitFor();
    await request.getByRole('button', { name: 'Approve' }).click();
    await request.waitFor({ state: 'detached' });
    assert.deepEqual(server.store.current.channels.telegram?.accounts['bot1']?.allow_from, ['77']);
    tg.pushMessage({ chatId: 77, fromId: 77, text: 'now?' });
    const calls = await tg.waitForCalls('sendMessage', 2, 20_000);
    assert.equal(calls[1]?.params['text'], 'Hello from the agent.');
  });

  it('turns requireAuth on once the admin password is changed on the Users page', async () => {
    await ui.page.goto('/ui/users');
    await user('admin').getByRole('button', { name: 'Reset password' }).click();
    const prompt = ui.page.getByRole('dialog', { name: 'Reset the password of admin' });
    await prompt.getByRole('textbox').fill('a-better-password');
    await prompt.getByRole('button', { name: 'Reset password' }).click();
    await ui.page.getByText(/Password of admin reset/).waitFor();
    await ui.page.goto('/ui/settings');
    const card = ui.page.getByRole('region', { name: 'Security' });
    const toggle = card.getByRole('switch', { name: 'Require sign-in' });
    await toggle.waitFor();
    assert.equal(await card.locator('[data-info="default-password"]').count(), 0);
    await toggle.click();
    await ui.page.getByText('Authentication is now required').waitFor();
    assert.equal(server.store.current.security.requireAuth, true);
    // The next call needs a login: the UI goes to the login page, and the new password signs in.
    await ui.page.goto('/ui/users');
    await ui.page.waitForURL(/\/ui\/login$/);
    await ui.page.getByLabel('Password').fill('a-better-password');
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await user('admin').waitFor();
    assertNoConsoleErrors(ui);
  });
});
