// The Agents page in a real browser: status and load errors, create from the template, the editor
// tabs (prompt, tools, skills, workspace files), reload and delete with confirmation.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Agents', () => {
  let server: TestApp;
  let ui: UiPage;

  const getJson = async (url: string) => (await server.app.inject({ method: 'GET', url })).json();

  uiSuite(
    {
      // An agent whose file is broken: listed, not loaded, with its error.
      setUp: async (started) => {
        const folder = join(started.dir, 'data', 'agents', 'broken');
        await mkdir(folder, { recursive: true });
        await writeFile(
          join(folder, 'agent.json'),
          JSON.stringify({
            ruleChain: { id: 'broken', name: 'Broken' },
            metadata: { nodes: [{ id: 'n', type: 'nope' }] },
          }),
        );
        await started.app.inject({ method: 'POST', url: '/api/v1/agents/broken/reload' });
      },
      // The broken agent's reload answers 400 on purpose.
      page: { allowErrors: [/status of 400/] },
    },
    (suite) => ({ server, ui } = suite),
  );

  it('lists agents with their status, and a broken agent shows its load error', async () => {
    await ui.page.goto('/ui/agents');
    await ui.page.locator('[data-agent="main"] .badge', { hasText: 'loaded' }).waitFor();
    await ui.page.locator('[data-agent="broken"] .badge', { hasText: 'load error' }).waitFor();
    await screenshotAllModes(ui, 'agents-list');
    await ui.page.locator('[data-agent="broken"]').click();
    await ui.page.waitForURL(/\/ui\/agents\/broken$/);
    const alert = ui.page.getByRole('alert').filter({ hasText: 'did not load' });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /unknown node type "nope"/);
    await screenshotAllModes(ui, 'agents-broken');
  });

  it('creates an agent from the template', async () => {
    await ui.page.getByRole('link', { name: 'New agent' }).click();
    await ui.page.waitForURL(/\/ui\/agents\/new$/);
    await ui.page.getByLabel('ID', { exact: true }).fill('helper');
    await ui.page.getByLabel('Name', { exact: true }).fill('Helper');
    await ui.page.getByRole('button', { name: 'Create' }).click();
    await ui.page.waitForURL(/\/ui\/agents\/helper$/);
    await ui.page.locator('[data-agent="helper"] .badge', { hasText: 'loaded' }).waitFor();
    const agent = await getJson('/api/v1/agents/helper');
    assert.equal(agent.ruleChain.name, 'Helper');
    assert.equal(agent.metadata.nodes[0].type, 'ai/agent', 'made from the template');
  });

  it('edits the prompt and the tools, saved with one PUT', async () => {
    await ui.page.getByRole('link', { name: 'Prompt' }).click();
    await ui.page.waitForURL(/\/ui\/agents\/helper\/prompt$/);
    await ui.page.getByLabel('System prompt').fill('You are a careful helper.');
    await ui.page.getByRole('link', { name: 'Tools' }).click();
    const write = ui.page.getByRole('checkbox', { name: /^write/ });
    assert.equal(await write.isChecked(), true);
    await write.uncheck();
    await screenshotAllModes(ui, 'agents-tools');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Saved' }).waitFor();
    const agent = await getJson('/api/v1/agents/helper');
    const config = agent.metadata.nodes[0].configuration;
    assert.equal(config.systemPrompt, 'You are a careful helper.');
    assert.deepEqual(
      config.tools.map((tool: { name: string }) => tool.name),
      [
        'read',
        'edit',
        'grep',
        'glob',
        'skill',
        'memory_search',
        'memory_get',
        'memory_write',
        'session_search',
      ],
    );
    await ui.page.getByRole('link', { name: 'Model' }).click();
    await ui.page.getByLabel('Max steps').waitFor();
    await screenshotAllModes(ui, 'agents-model');
  });

  it('adds a remote agent (A2A) as a tool, its API key in a password field', async () => {
    await ui.page.getByRole('link', { name: 'Tools' }).click();
    await ui.page.getByRole('button', { name: 'Add a remote agent' }).click();
    await ui.page.getByLabel('Remote agent tool name').fill('ask_remote');
    await ui.page.getByLabel('Remote agent URL').fill('http://127.0.0.1:9/api/v1/a2a/main');
    const key = ui.page.getByLabel('Remote agent API key');
    assert.equal(await key.getAttribute('type'), 'password');
    await key.fill('sk-remote-key-0123456789');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Saved' }).waitFor();
    const agent = await getJson('/api/v1/agents/helper');
    const tools = agent.metadata.nodes[0].configuration.tools as Array<{ type: string }>;
    // The key is write-only: the API shows it as set, the stored definition holds it.
    assert.deepEqual(
      tools.find((tool) => tool.type === 'a2a'),
      {
        type: 'a2a',
        name: 'ask_remote',
        config: { url: 'http://127.0.0.1:9/api/v1/a2a/main', apiKey: '***' },
      },
    );
    const stored = await readFile(join(server.dir, 'data', 'agents', 'helper', 'agent.json'), 'utf8');
    assert.ok(stored.includes('sk-remote-key-0123456789'));
  });

  it('creates a skill of the agent', async () => {
    await ui.page.locator('.tabs').getByRole('link', { name: 'Skills' }).click();
    await ui.page.getByRole('button', { name: 'New skill' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New skill' });
    await dialog.getByLabel('Name', { exact: true }).fill('tea');
    await dialog.getByLabel('Description').fill('Brewing tea');
    await dialog.getByLabel('Content (Markdown)').fill('# Tea\nSteep for 3 minutes.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.list-item', { hasText: 'Brewing tea' }).waitFor();
    const skill = await getJson('/api/v1/agents/helper/skills/tea');
    assert.equal(skill.content, '# Tea\nSteep for 3 minutes.');
  });

  it('creates and edits a workspace file', async () => {
    await ui.page.getByRole('link', { name: 'Workspace' }).click();
    await ui.page.getByRole('button', { name: 'New file' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'New file' });
    await dialog.getByRole('textbox').fill('notes.md');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const editor = ui.page.getByLabel('Content of notes.md');
    await editor.fill('# Notes\nbuy milk');
    await ui.page.getByRole('button', { name: 'Save file' }).click();
    await ui.page.locator('.toast-success', { hasText: 'notes.md saved' }).waitFor();
    const file = await getJson('/api/v1/agents/helper/workspace/file?path=notes.md');
    assert.equal(file.content, '# Notes\nbuy milk');
    await screenshotAllModes(ui, 'agents-workspace');
  });

  it('reloads an agent', async () => {
    await ui.page.getByRole('button', { name: 'Reload agent' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Reloaded' }).waitFor();
  });

  it('deletes an agent only after confirmation', async () => {
    await ui.page.locator('.editor .toolbar').getByRole('button', { name: 'Delete agent' }).click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete agent' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal((await server.app.inject({ method: 'GET', url: '/api/v1/agents/helper' })).statusCode, 200);
    await ui.page.locator('.editor .toolbar').getByRole('button', { name: 'Delete agent' }).click();
    await confirm.getByRole('button', { name: 'Delete agent' }).click();
    await ui.page.waitForURL(/\/ui\/agents$/);
    await ui.page.locator('[data-agent="helper"]').waitFor({ state: 'detached' });
    assert.equal((await server.app.inject({ method: 'GET', url: '/api/v1/agents/helper' })).statusCode, 404);
  });

  it('at 375 px shows the list, then the editor alone with a way back', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/agents/main/prompt');
    await ui.page.getByLabel('System prompt').waitFor();
    assert.equal(await ui.page.locator('.split-list').isVisible(), false);
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
    await ui.page.getByRole('link', { name: 'Back to the agent list' }).click();
    await ui.page.locator('[data-agent="main"]').waitFor();
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
