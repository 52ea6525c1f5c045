// A refused field in the skill dialog (Skills page and an agent's Skills tab) and in the agent
// editor is shown under that field, in words, and no toast repeats it with the API's field path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { agentDefinition } from '../fakes/builders.ts';
import { assertNoConsoleErrors, uiSuite, type UiPage } from './browser.ts';

describe('web UI: refused fields shown at the field', () => {
  let ui: UiPage;
  uiSuite(
    {
      setUp: async (started) => {
        const created = await started.app.inject({
          method: 'POST',
          url: '/api/v1/agents',
          payload: agentDefinition('helper', { name: 'Helper' }),
        });
        assert.equal(created.statusCode, 201, created.body);
      },
      // The refusals are 400s and a 409 on purpose.
      page: { allowErrors: [/status of 40[09]/] },
    },
    (suite) => ({ ui } = suite),
  );

  /** The error under the field labelled `label` inside `scope`. */
  const fieldError = (scope: Locator, label: string) =>
    scope
      .locator('label.field', { has: ui.page.locator('.field-label', { hasText: label }) })
      .locator('.field-error');
  const noToast = async () => {
    assert.equal(await ui.page.locator('.toast-error').count(), 0, 'no error toast');
  };
  const discard = async (dialog: Locator) => {
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await ui.page
      .getByRole('dialog', { name: 'Discard unsaved changes?' })
      .getByRole('button', { name: 'Discard changes' })
      .click();
    await dialog.waitFor({ state: 'hidden' });
  };

  it('the Skills page dialog shows a refused name under Name, in words', async () => {
    await ui.page.goto('/ui/skills');
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name').fill('no spaces allowed');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# Notes');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const error = fieldError(dialog, 'Name');
    await error.waitFor();
    assert.equal(await error.textContent(), 'must be 1-64 letters, digits, "-" or "_"');
    await noToast();
    // Fixing the name and saving again works, and the error is gone.
    await dialog.getByLabel('Name').fill('notes');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await ui.page.locator('.toast-success', { hasText: 'Skill "notes" saved' }).waitFor();
  });

  it('a skill name already taken is said in the dialog, not only in a toast', async () => {
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name').fill('notes');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# Again');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.locator('.form-error', { hasText: /notes/ }).waitFor();
    await noToast();
    await discard(dialog);
  });

  it('an agent Skills tab dialog shows a refused name under Name, and asks before dropping edits', async () => {
    await ui.page.goto('/ui/agents/helper/skills');
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name').fill('bad/name');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# Tea');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await fieldError(dialog, 'Name').filter({ hasText: 'must be 1-64 letters' }).waitFor();
    await noToast();
    await discard(dialog);
  });

  it('the agent editor shows a refused ID under ID on the Basic tab', async () => {
    await ui.page.goto('/ui/agents/new');
    await ui.page.getByLabel('ID', { exact: true }).fill('bad id!');
    await ui.page.getByRole('button', { name: 'Create' }).click();
    const error = fieldError(ui.page.locator('.tab-panel'), 'ID');
    await error.waitFor();
    assert.equal(await error.textContent(), 'must be 1-64 letters, digits, "-" or "_"');
    await ui.page.getByLabel('ID', { exact: true }).fill('helper');
    await ui.page.getByRole('button', { name: 'Create' }).click();
    await fieldError(ui.page.locator('.tab-panel'), 'ID')
      .filter({ hasText: 'is already used by an agent' })
      .waitFor();
    await noToast();
  });

  it('a refused model setting opens the Model tab with the problem under its field, in words', async () => {
    await ui.page.goto('/ui/agents/helper/prompt');
    await ui.page.getByLabel('System prompt').fill('Be brief.');
    await ui.page.getByRole('link', { name: 'Model' }).click();
    await ui.page.getByLabel('Max steps').fill('0');
    await ui.page.getByRole('link', { name: 'Prompt' }).click();
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.waitForURL(/\/ui\/agents\/helper\/model$/);
    const error = fieldError(ui.page.locator('.tab-panel'), 'Max steps');
    await error.waitFor();
    assert.equal(await error.textContent(), 'must be at least 1');
    await noToast();
    // Changing the definition clears the stale error; a good value saves.
    await ui.page.getByLabel('Max steps').fill('5');
    assert.equal(await error.count(), 0);
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Saved' }).waitFor();
  });

  it('logged no console errors', () => assertNoConsoleErrors(ui));
});
