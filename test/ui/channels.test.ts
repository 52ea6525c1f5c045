// The Channels page in a real browser: every platform with its accounts and their connection state,
// add / edit / delete accounts with write-only secrets, policies and allowlist, the bindings editor.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { TestApp } from '../fakes/app-harness.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

const BOT_TOKEN = '123456:telegram-secret-token-value';

describe('web UI: Channels', () => {
  let server: TestApp;
  let ui: UiPage;

  const configFile = async () =>
    parse(await readFile(server.configPath, 'utf8')) as {
      channels?: Record<string, { accounts: Record<string, Record<string, unknown>> }>;
      bindings?: Array<{ agent_id: string; match: Record<string, unknown> }>;
    };
  const account = (key: string) => ui.page.locator(`[data-account="${key}"]`);

  uiSuite({}, (suite) => ({ server, ui } = suite));

  it('lists every platform', async () => {
    await ui.page.goto('/ui/channels');
    for (const platform of [
      'api',
      'feishu',
      'feishu_webhook',
      'dingtalk',
      'wecom',
      'telegram',
      'slack',
      'discord',
    ]) {
      await ui.page.locator(`[data-platform="${platform}"]`).waitFor();
    }
  });

  it('adds an api account: the generated key is shown once, then only as "set"', async () => {
    await ui.page.getByRole('button', { name: 'Add API account' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add API account' });
    await dialog.getByLabel('Account ID').fill('crm');
    await dialog.getByLabel('Display name').fill('CRM');
    await dialog.getByRole('button', { name: 'Add account' }).click();
    const keyDialog = ui.page.getByRole('dialog', { name: 'The new API key' });
    const shown = (await keyDialog.getByLabel('New API key').textContent()) ?? '';
    assert.match(shown, /^sk-/);
    const stored = (await configFile()).channels?.['api']?.accounts['crm'];
    assert.equal(stored?.['api_key'], shown, 'the key shown is the one stored');
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    await account('api/crm').getByText('connected').waitFor();
    assert.match((await account('api/crm').textContent()) ?? '', /key set/);
    assert.ok(!(await ui.page.content()).includes(shown), 'the key is gone from the page');
  });

  it('edits policies and the allowlist; an empty secret keeps the stored one', async () => {
    const before = (await configFile()).channels?.['api']?.accounts['crm']?.['api_key'];
    await ui.page.getByRole('button', { name: 'Edit account crm' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Edit API account crm' });
    await dialog.locator('.badge', { hasText: 'set' }).waitFor();
    assert.equal(await dialog.getByLabel(/API key/).inputValue(), '', 'the key is never filled in');
    await dialog.getByLabel('Direct messages').selectOption('allowlist');
    await dialog.getByLabel('Allowlist', { exact: true }).fill('alice\nbob');
    await dialog.getByLabel('Description').fill('The CRM integration');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await account('api/crm').getByText('DMs: Only the allowlist').waitFor();
    const stored = (await configFile()).channels?.['api']?.accounts['crm'];
    assert.equal(stored?.['dm_policy'], 'allowlist');
    assert.deepEqual(stored?.['allow_from'], ['alice', 'bob']);
    assert.equal(stored?.['description'], 'The CRM integration');
    assert.equal(stored?.['api_key'], before, 'the key is unchanged');
  });

  it('adds a telegram account whose connection fails, and shows that state', async () => {
    await ui.page.getByRole('button', { name: 'Add Telegram account' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Add Telegram account' });
    await dialog.getByLabel('Account ID').fill('support');
    await dialog.getByLabel('Bot token').fill(BOT_TOKEN);
    // Nothing listens on loopback port 9: the long poll cannot connect.
    await dialog.getByLabel('API base URL (optional)').fill('http://127.0.0.1:9');
    await dialog.getByLabel('Group chats').selectOption('disabled');
    await dialog.getByRole('button', { name: 'Add account' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = account('telegram/support');
    await row.getByText(/^(connecting|error)/).waitFor();
    assert.match((await row.textContent()) ?? '', /groups: Nobody \(off\)/);
    const stored = (await configFile()).channels?.['telegram']?.accounts['support'];
    assert.equal(stored?.['app_secret'], BOT_TOKEN);
    assert.equal(stored?.['group_policy'], 'disabled');
    assert.ok(!(await ui.page.content()).includes(BOT_TOKEN), 'the token never shows');
    await ui.page.getByRole('button', { name: 'Edit account support' }).click();
    const edit = ui.page.getByRole('dialog', { name: 'Edit Telegram account support' });
    assert.equal(await edit.getByLabel(/Bot token/).inputValue(), '');
    await edit.getByText('set', { exact: true }).waitFor();
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.getByText('disabled').waitFor();
    await screenshotAllModes(ui, 'channels-accounts');
  });

  it('edits the bindings and saves them whole', async () => {
    await ui.page.getByRole('button', { name: 'Add binding' }).click();
    await ui.page.getByLabel('Channel of binding 1').selectOption('api');
    await ui.page.getByLabel('Account of binding 1').selectOption('crm');
    await ui.page.getByRole('button', { name: 'Add binding' }).click();
    await ui.page.getByLabel('Binding 2 is the default').check();
    await ui.page.getByRole('button', { name: 'Move binding 2 up' }).click();
    await ui.page.getByRole('button', { name: 'Save bindings' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Bindings saved' }).waitFor();
    const answer = (await server.app.inject({ method: 'GET', url: '/api/v1/bindings' })).json();
    assert.deepEqual(answer, {
      bindings: [
        { agentId: 'main', match: { default: true } },
        { agentId: 'main', match: { channel: 'api', accountId: 'crm' } },
      ],
    });
    assert.equal(await ui.page.getByRole('button', { name: 'Save bindings' }).isDisabled(), true);
    await screenshotAllModes(ui, 'channels-bindings');
  });

  it('deletes an account only after confirmation, with its bindings', async () => {
    await ui.page.getByRole('button', { name: 'Delete account crm' }).click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete account' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.ok((await configFile()).channels?.['api']?.accounts['crm']);
    await ui.page.getByRole('button', { name: 'Delete account crm' }).click();
    await confirm.getByRole('button', { name: 'Delete account' }).click();
    await account('api/crm').waitFor({ state: 'detached' });
    assert.equal((await configFile()).channels?.['api']?.accounts['crm'], undefined);
    assert.deepEqual((await configFile()).bindings, [{ agent_id: 'main', match: { default: true } }]);
  });

  it('at 375 px the page fits the width', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/channels');
    await account('telegram/support').waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
