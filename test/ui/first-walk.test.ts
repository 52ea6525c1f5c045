// What a new user hit in the web UI (issue 20), each reproduced in a real browser: reloading another
// channel's conversation, unknown pages, retry on read-only conversations, unsaved edits, MCP servers
// that cannot start, write-only agent keys, drawers and Escape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentDefinition } from '../fakes/builders.ts';
import { assertNoConsoleErrors, DESKTOP, PHONE, uiSuite, type UiPage } from './browser.ts';

const CRASH = `console.error('missing MCP_HOME'); process.exit(3)`;

describe('web UI: what a new user hit', () => {
  let ui: UiPage;
  let cronKey = '';

  uiSuite(
    {
      setUp: async (started) => {
        const post = (url: string, payload: unknown) =>
          started.app.inject({ method: 'POST', url, payload: payload as object });
        const toolbox = await post(
          '/api/v1/agents',
          agentDefinition('toolbox', {
            tools: [{ type: 'mcp', name: 'crashy', config: { server: [process.execPath, '-e', CRASH] } }],
          }),
        );
        assert.equal(toolbox.statusCode, 201, toolbox.body);
        const keyed = await post(
          '/api/v1/agents',
          agentDefinition('keyed', { url: 'http://127.0.0.1:9/v1', key: 'sk-keyed-secret-1' }),
        );
        assert.equal(keyed.statusCode, 201, keyed.body);
        const task = await post('/api/v1/cron', {
          name: 'Daily',
          schedule: '0 0 9 * * *',
          target: 'main',
          message: 'morning report please',
          disabled: true,
        });
        assert.equal(task.statusCode, 201, task.body);
        const ran = await post(`/api/v1/cron/${task.json().id}/run`, {});
        assert.equal(ran.statusCode, 200, ran.body);
        const sessions = (await started.app.inject({ url: '/api/v1/agents/main/sessions' })).json();
        const list = (Array.isArray(sessions) ? sessions : sessions.data) as Array<{
          key: string;
          channel: string;
        }>;
        cronKey = list.find((session) => session.channel === 'cron')?.key ?? '';
        assert.ok(cronKey.startsWith('agent:main:channel:cron:'), JSON.stringify(list));
      },
      // A bad schedule is refused (400) on purpose, by the preview and by the create.
      page: { allowErrors: [/status of 400/, /Failed to load resource: net::ERR_FAILED/] },
    },
    (suite) => ({ ui } = suite),
  );

  it('an unknown page shows the UI own not-found page, not JSON', async () => {
    const response = await ui.page.goto('/ui/no-such-page/deeper');
    assert.equal(response?.status(), 200);
    await ui.page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await ui.page.getByRole('link', { name: 'Go to Chat' }).click();
    await ui.page.waitForURL(/\/ui\/chat\/main\//);
  });

  it('a cron conversation reloads, read-only and without Regenerate or Edit', async () => {
    await ui.page.goto(`/ui/chat/main/${encodeURIComponent(cronKey)}`);
    const asked = ui.page.locator('.message-user', { hasText: 'morning report please' });
    await asked.waitFor();
    await ui.page.reload();
    await asked.waitFor();
    await ui.page.locator('.message-assistant').first().waitFor();
    assert.equal(await ui.page.getByRole('button', { name: 'Regenerate' }).count(), 0);
    assert.equal(await ui.page.getByRole('button', { name: 'Edit message' }).count(), 0);
    assert.equal(await ui.page.getByRole('textbox', { name: 'Message' }).isDisabled(), true);
    await ui.page.getByText('came through the cron channel').waitFor();
  });

  it('leaving the agent editor with unsaved edits asks first, and Cancel keeps them', async () => {
    await ui.page.goto('/ui/agents/main/prompt');
    const prompt = ui.page.getByRole('textbox', { name: 'System prompt' });
    await prompt.fill('You are terse.');
    // Another tab of the same editor keeps the draft without asking.
    await ui.page.getByRole('link', { name: 'Model' }).click();
    await ui.page.waitForURL(/\/ui\/agents\/main\/model$/);
    assert.equal(await ui.page.getByRole('dialog', { name: 'Discard unsaved changes?' }).count(), 0);
    await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cron' }).click();
    const ask = ui.page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await ask.getByText('Your changes to agent "main" are not saved.').waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.match(ui.page.url(), /\/ui\/agents\/main\/model$/);
    await ui.page.getByRole('link', { name: 'Prompt' }).click();
    assert.equal(
      await ui.page.getByRole('textbox', { name: 'System prompt' }).inputValue(),
      'You are terse.',
    );
    await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cron' }).click();
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await ui.page.waitForURL(/\/ui\/cron$/);
  });

  it('closing the new cron task dialog with changes asks first', async () => {
    await ui.page.getByRole('button', { name: 'New task' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New cron task' });
    await dialog.getByLabel('Name').fill('Weekly');
    await ui.page.keyboard.press('Escape');
    const ask = ui.page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await dialog.getByLabel('Name').inputValue(), 'Weekly');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('leaving the rule chain editor with unsaved edits asks first, and Cancel keeps them', async () => {
    await ui.page.goto('/ui/rules/main');
    // The graph is the default view: the JSON view is a tab away.
    await ui.page.getByRole('tab', { name: 'JSON' }).click();
    const editor = ui.page.getByRole('textbox', { name: 'Rule chain JSON' });
    const edited = (await editor.inputValue()).replace('"Main agent"', '"Main agent, edited"');
    await editor.fill(edited);
    await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cron' }).click();
    const ask = ui.page.getByRole('dialog', { name: 'Discard unsaved changes?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.match(ui.page.url(), /\/ui\/rules\/main$/);
    assert.equal(await editor.inputValue(), edited);
    await ui.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cron' }).click();
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await ui.page.waitForURL(/\/ui\/cron$/);
  });

  it('a refused field is shown at the field, in words, not as a toast with the API path', async () => {
    await ui.page.goto('/ui/cron');
    await ui.page.getByRole('button', { name: 'New task' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New cron task' });
    await dialog.getByLabel('Name').fill('Bad hour');
    await dialog.getByLabel('Message').fill('hello');
    await dialog.getByLabel('Schedule').fill('0 0 25 * * *');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog
      .locator('.field-error', { hasText: 'field "hour" (3rd) "25" is out of range 0-23' })
      .waitFor();
    assert.equal(await ui.page.locator('.toast', { hasText: 'body.' }).count(), 0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await ui.page
      .getByRole('dialog', { name: 'Discard unsaved changes?' })
      .getByRole('button', { name: 'Discard changes' })
      .click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('an MCP server that cannot start shows on the agent list and on its Tools tab, with the reason', async () => {
    await ui.page.goto('/ui/agents');
    await ui.page.locator('[data-agent="toolbox"] .badge', { hasText: '1 problem' }).waitFor();
    await ui.page.goto('/ui/agents/toolbox/tools');
    await ui.page
      .getByRole('alert')
      .filter({ hasText: 'MCP tool "crashy" is unavailable' })
      .filter({ hasText: 'missing MCP_HOME' })
      .waitFor();
  });

  it('the Model tab says a key is set and never shows it', async () => {
    await ui.page.goto('/ui/agents/keyed/model');
    await ui.page.getByText('A key is set on this agent.').waitFor();
    assert.equal(await ui.page.getByLabel('API key').inputValue(), '');
    assert.ok(!(await ui.page.content()).includes('sk-keyed-secret-1'));
  });

  it('cron history shows the reply as Markdown, not raw', async () => {
    await ui.page.goto('/ui/cron');
    await ui.page.getByRole('button', { name: 'History of Daily' }).click();
    const reply = ui.page.locator('.run-reply').first();
    await reply.locator('code', { hasText: 'agent-service providers add' }).waitFor();
    assert.ok(!(await reply.innerText()).includes('`'), 'no literal backticks');
    await ui.page.keyboard.press('Escape');
  });

  it('the default agent offers no Delete; another agent does', async () => {
    await ui.page.goto('/ui/agents/main');
    await ui.page.getByRole('button', { name: 'Reload agent' }).waitFor();
    assert.equal(await ui.page.getByRole('button', { name: 'Delete agent' }).count(), 0);
    await ui.page.goto('/ui/agents/keyed');
    await ui.page.getByRole('button', { name: 'Delete agent' }).waitFor();
  });

  it('hints show no literal backticks', async () => {
    await ui.page.goto('/ui/agents/new/basic');
    await ui.page.getByText('It names the agent in chat requests').waitFor();
    for (const path of ['/ui/agents/new/basic', '/ui/agents/main/prompt', '/ui/settings', '/ui/channels']) {
      await ui.page.goto(path);
      await ui.page.locator('.field-help, .muted').first().waitFor();
      const hints = await ui.page.locator('.field-help').allTextContents();
      assert.deepEqual(
        hints.filter((hint) => hint.includes('`')),
        [],
        path,
      );
    }
  });

  it('an error toast never covers the Send button, on a desktop or at 375 px', async () => {
    for (const size of [DESKTOP, PHONE]) {
      await ui.page.setViewportSize(size);
      await ui.page.goto('/ui/chat/main');
      await ui.page.route('**/api/v1/chat/completions', (route) => route.abort());
      const composer = ui.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('are you there?');
      // Enter sends only once the composer has re-rendered with the text (Send enabled); a trial
      // click waits for that without clicking.
      await ui.page.getByRole('button', { name: 'Send' }).click({ trial: true });
      await composer.press('Enter');
      const toast = ui.page.locator('.toast-error').first();
      await toast.waitFor();
      const send = await ui.page.getByRole('button', { name: 'Send' }).boundingBox();
      const box = await toast.boundingBox();
      assert.ok(send && box, 'both are on screen');
      const overlap =
        box.x < send.x + send.width &&
        send.x < box.x + box.width &&
        box.y < send.y + send.height &&
        send.y < box.y + box.height;
      assert.equal(overlap, false, `toast ${JSON.stringify(box)} over Send ${JSON.stringify(send)}`);
      await ui.page.unroute('**/api/v1/chat/completions');
      await composer.fill('');
    }
  });

  it('Escape closes the navigation drawer and the conversations drawer at 375 px', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/chat/main');
    await ui.page.getByRole('button', { name: 'Menu' }).click();
    await ui.page.locator('.shell.menu-open').waitFor({ state: 'attached' });
    await ui.page.keyboard.press('Escape');
    await ui.page.locator('.shell:not(.menu-open)').waitFor({ state: 'attached' });
    await ui.page.getByRole('button', { name: 'Conversations' }).click();
    await ui.page.locator('.chat-page.list-open').waitFor({ state: 'attached' });
    await ui.page.keyboard.press('Escape');
    await ui.page.locator('.chat-page:not(.list-open)').waitFor({ state: 'attached' });
  });

  it('logged no console errors', () => assertNoConsoleErrors(ui));
});
