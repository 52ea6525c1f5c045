// The Skills page in a real browser: global and per-agent scope, create, edit, upload a zip, copy
// to another scope, delete with confirmation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import type { TestApp } from '../fakes/app-harness.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

const skillFile = (name: string, description: string, body: string) =>
  strToU8(`---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);

describe('web UI: Skills', () => {
  let server: TestApp;
  let ui: UiPage;

  const getJson = async (url: string) => {
    const response = await server.app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json() };
  };
  const item = (name: string) => ui.page.locator(`[data-skill="${name}"]`);

  uiSuite({}, (suite) => ({ server, ui } = suite));

  it('opens on the global skills, empty at first', async () => {
    await ui.page.goto('/ui/skills');
    await ui.page.getByText('No skills in global skills yet.').waitFor();
    assert.equal(await ui.page.getByLabel('Scope').inputValue(), 'global');
  });

  it('creates a global skill with its SKILL.md content', async () => {
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name').fill('pdf');
    await dialog.getByLabel('Description').fill('Work with PDF files');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# PDF\nUse pdftotext.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await item('pdf').getByText('Work with PDF files').waitFor();
    const { status, body } = await getJson('/api/v1/skills/pdf?scope=global');
    assert.equal(status, 200);
    assert.deepEqual(body, {
      name: 'pdf',
      description: 'Work with PDF files',
      content: '# PDF\nUse pdftotext.',
      scope: 'global',
    });
  });

  it('edits its description and content', async () => {
    await ui.page.getByRole('button', { name: 'Edit skill pdf' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Edit skill pdf' });
    assert.equal(await dialog.getByLabel('Name').isDisabled(), true, 'a skill cannot be renamed');
    assert.equal(
      await dialog.getByLabel('SKILL.md content (Markdown)').inputValue(),
      '# PDF\nUse pdftotext.',
    );
    await dialog.getByLabel('Description').fill('Read and split PDFs');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# PDF\nUse pdftotext, then split.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await item('pdf').getByText('Read and split PDFs').waitFor();
    const { body } = await getJson('/api/v1/skills/pdf?scope=global');
    assert.equal(body.description, 'Read and split PDFs');
    assert.equal(body.content, '# PDF\nUse pdftotext, then split.');
  });

  it('uploads a zip of skill folders', async () => {
    const archive = zipSync({
      'tea/SKILL.md': skillFile('tea', 'Brewing tea', '# Tea\nSteep 3 minutes.'),
      'coffee/SKILL.md': skillFile('coffee', 'Brewing coffee', '# Coffee'),
      'coffee/notes.txt': strToU8('grind fine'),
    });
    await ui.page.getByLabel('Upload a zip of skills').setInputFiles({
      name: 'skills.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from(archive),
    });
    await ui.page.locator('.toast-success', { hasText: /Installed (coffee, tea|tea, coffee)/ }).waitFor();
    await item('tea').waitFor();
    await item('coffee').waitFor();
    const { body } = await getJson('/api/v1/skills/tea?scope=global');
    assert.equal(body.content.trim(), '# Tea\nSteep 3 minutes.');
    await screenshotAllModes(ui, 'skills-global');
  });

  it('copies a skill to an agent under a new name', async () => {
    await ui.page.getByRole('button', { name: 'Copy skill pdf' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Copy skill pdf' });
    await dialog.getByLabel('Copy to').selectOption('agent:main');
    await dialog.getByLabel('New name').fill('pdf-main');
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Copied to agent "main"' }).waitFor();
    const { status, body } = await getJson('/api/v1/agents/main/skills/pdf-main');
    assert.equal(status, 200);
    assert.equal(body.content, '# PDF\nUse pdftotext, then split.');
  });

  it('switches to an agent’s own skills, kept in the URL', async () => {
    await ui.page.getByLabel('Scope').selectOption('agent:main');
    await ui.page.waitForURL(/\/ui\/skills\/agent\/main$/);
    await item('pdf-main').waitFor();
    assert.equal(await item('tea').count(), 0, 'global skills are not listed as the agent’s own');
    await ui.page.reload();
    await item('pdf-main').waitFor();
    assert.equal(await ui.page.getByLabel('Scope').inputValue(), 'agent:main');
    await screenshotAllModes(ui, 'skills-agent');
  });

  it('creates a skill of the agent in that scope', async () => {
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name').fill('notes');
    await dialog.getByLabel('SKILL.md content (Markdown)').fill('# Notes');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await item('notes').waitFor();
    assert.equal((await getJson('/api/v1/agents/main/skills/notes')).status, 200);
    assert.equal((await getJson('/api/v1/skills/notes?scope=global')).status, 404);
  });

  it('deletes a skill only after confirmation', async () => {
    await ui.page.getByRole('button', { name: 'Delete skill pdf-main' }).click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete skill' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal((await getJson('/api/v1/agents/main/skills/pdf-main')).status, 200);
    await ui.page.getByRole('button', { name: 'Delete skill pdf-main' }).click();
    await confirm.getByRole('button', { name: 'Delete skill' }).click();
    await item('pdf-main').waitFor({ state: 'detached' });
    assert.equal((await getJson('/api/v1/agents/main/skills/pdf-main')).status, 404);
    assert.equal((await getJson('/api/v1/skills/pdf?scope=global')).status, 200, 'the global original stays');
  });

  it('at 375 px the page fits the width', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/skills');
    await item('tea').waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
