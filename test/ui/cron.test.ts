// The Cron page in a real browser: create with a preview of the next runs (and the server's reason
// for a bad schedule), next and last run in the list, toggle, run now, run history, delete.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

interface Task {
  id: string;
  name: string;
  schedule: string;
  target: string;
  message: string;
  disabled: boolean;
  nextRunAt: string | null;
}

describe('web UI: Cron', () => {
  let server: TestApp;
  let ui: UiPage;

  const tasks = async (): Promise<Task[]> =>
    (await server.app.inject({ method: 'GET', url: '/api/v1/cron' })).json();
  const row = (id: string) => ui.page.locator(`[data-task="${id}"]`);

  // The preview of a bad schedule answers 400 on purpose.
  uiSuite({ page: { allowErrors: [/status of 400/] } }, (suite) => ({ server, ui } = suite));

  it('shows an empty list at first', async () => {
    await ui.page.goto('/ui/cron');
    await ui.page.getByText('No cron tasks yet.').waitFor();
  });

  it('previews the next runs while the schedule is typed, and names a bad field', async () => {
    await ui.page.getByRole('button', { name: 'New task' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New cron task' });
    const preview = dialog.getByLabel('Next runs');
    await preview.locator('li').nth(4).waitFor();
    assert.equal(await preview.locator('li').count(), 5);
    await dialog.getByLabel('Schedule').fill('0 0 25 * * *');
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'field "hour" (3rd) "25" is out of range 0-23' })
      .waitFor();
    await dialog.getByLabel('Preset').selectOption('0 */15 * * * *');
    assert.equal(await dialog.getByLabel('Schedule').inputValue(), '0 */15 * * * *');
    await preview.locator('li').nth(4).waitFor();
    // Fifteen minutes apart, as the server computed them.
    const times = await preview.locator('li').allTextContents();
    const [first, second] = times.map((text) => Date.parse(text));
    assert.ok(first !== undefined && second !== undefined && !Number.isNaN(first), `a date: ${times[0]}`);
    assert.equal(second - first, 15 * 60_000);
    await screenshotAllModes(ui, 'cron-create');
  });

  it('creates a task for an agent', async () => {
    const dialog = ui.page.getByRole('dialog', { name: 'New cron task' });
    await dialog.getByLabel('Name').fill('Morning notes');
    assert.equal(await dialog.getByLabel('Agent').inputValue(), 'main');
    await dialog.getByLabel('Message').fill('summarise my notes');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const [task] = await tasks();
    assert.ok(task);
    assert.equal(task.name, 'Morning notes');
    assert.equal(task.schedule, '0 */15 * * * *');
    assert.equal(task.target, 'main');
    assert.equal(task.message, 'summarise my notes');
    await row(task.id).getByText('never run').waitFor();
    assert.ok(task.nextRunAt);
    assert.match((await row(task.id).locator('td[data-label="Next run"]').textContent()) ?? '', /\d/);
  });

  it('runs a task now, shows the last run and its history', async () => {
    const [task] = await tasks();
    assert.ok(task);
    await ui.page.getByRole('button', { name: 'Run Morning notes now' }).click();
    await row(task.id).locator('.badge', { hasText: 'ok' }).waitFor();
    await ui.page.getByRole('button', { name: 'Run Morning notes now' }).click();
    await ui.page.locator('.toast-success', { hasText: '"Morning notes" ran' }).waitFor();
    await ui.page.getByRole('button', { name: 'History of Morning notes' }).click();
    const history = ui.page.getByRole('dialog', { name: 'Runs of Morning notes' });
    const runs = history.getByRole('list', { name: 'Run history' }).locator('li');
    await runs.nth(1).waitFor();
    assert.equal(await runs.count(), 2);
    assert.match((await runs.first().textContent()) ?? '', /success[\s\S]*demo model/);
    await screenshotAllModes(ui, 'cron-history');
    await history.getByRole('button', { name: 'Close' }).click();
  });

  it('disables and enables a task', async () => {
    const [task] = await tasks();
    assert.ok(task);
    const enabled = ui.page.getByRole('checkbox', { name: 'Enabled: Morning notes' });
    await enabled.uncheck();
    await row(task.id).getByText('off').waitFor();
    let [stored] = await tasks();
    assert.equal(stored?.disabled, true);
    assert.equal(stored?.nextRunAt, null);
    await screenshotAllModes(ui, 'cron-list');
    await enabled.check();
    await row(task.id).getByText('on', { exact: true }).waitFor();
    [stored] = await tasks();
    assert.equal(stored?.disabled, false);
  });

  it('deletes a task only after confirmation', async () => {
    const [task] = await tasks();
    assert.ok(task);
    await ui.page.getByRole('button', { name: 'Delete Morning notes' }).click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete task' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal((await tasks()).length, 1);
    await ui.page.getByRole('button', { name: 'Delete Morning notes' }).click();
    await confirm.getByRole('button', { name: 'Delete task' }).click();
    await row(task.id).waitFor({ state: 'detached' });
    assert.equal((await tasks()).length, 0);
  });

  it('at 375 px the task list becomes stacked rows that fit', async () => {
    await server.app.inject({
      method: 'POST',
      url: '/api/v1/cron',
      payload: {
        name: 'Weekly review',
        schedule: '0 0 10 * * 1',
        message: 'review the week',
        target: 'main',
      },
    });
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/cron');
    await ui.page.getByRole('button', { name: 'Run Weekly review now' }).waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
    await screenshotAllModes(ui, 'cron-list-phone');
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
