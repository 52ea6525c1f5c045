// The Rules page in a real browser: list and filters, create from the example, run with a test
// message and read the run log node by node, validation errors marked at the node, reload, delete.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { assertNoConsoleErrors, PHONE, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Rule chains', () => {
  let server: TestApp;
  let ui: UiPage;

  const editor = () => ui.page.getByRole('textbox', { name: 'Rule chain JSON' });

  // Saving a broken chain and running one that fails answer 400 on purpose.
  uiSuite({ page: { allowErrors: [/status of 400/] } }, (suite) => ({ server, ui } = suite));

  it('lists chains with their status, agents marked as such', async () => {
    await ui.page.goto('/ui/rules');
    const main = ui.page.locator('[data-chain="main"]');
    await main.locator('.badge', { hasText: 'loaded' }).waitFor();
    assert.match((await main.textContent()) ?? '', /agent/);
  });

  it('creates a chain from the example, as a global chain', async () => {
    await ui.page.getByRole('link', { name: 'New chain' }).click();
    await ui.page.waitForURL(/\/ui\/rules\/new$/);
    // The graph is the default view; the JSON view is a tab away, and stays chosen in this browser.
    await ui.page.getByRole('tab', { name: 'JSON' }).click();
    const text = await editor().inputValue();
    assert.match(text, /"id": "my-chain"/);
    await editor().fill(text.replace('"my-chain"', '"warm-check"').replace('"My chain"', '"Warm check"'));
    await ui.page.getByRole('button', { name: 'Create' }).click();
    await ui.page.waitForURL(/\/ui\/rules\/warm-check$/);
    await ui.page.locator('[data-chain="warm-check"] .badge', { hasText: 'loaded' }).waitFor();
    const chain = (await server.app.inject({ method: 'GET', url: '/api/v1/rules/warm-check' })).json();
    assert.equal(chain.ruleChain.name, 'Warm check');
    assert.equal(chain.metadata.nodes.length, 2);
  });

  it('runs the chain with a test message and shows the run log node by node', async () => {
    await ui.page.getByLabel('Message type').fill('WEATHER');
    await ui.page.getByLabel('Metadata').fill('city=Oslo');
    await ui.page.getByLabel('Data', { exact: true }).fill('{"temperature": 25}');
    await ui.page.getByRole('button', { name: 'Run', exact: true }).click();
    const result = ui.page.getByLabel('Run result');
    await result.filter({ hasText: '"warm": true' }).waitFor();
    const check = ui.page.locator('.node-log[data-node="check"]');
    const mark = ui.page.locator('.node-log[data-node="mark"]');
    await check.locator('.badge', { hasText: 'True' }).waitFor();
    await mark.locator('.badge', { hasText: 'Success' }).waitFor();
    // In and out messages, with data and metadata, open on demand.
    await mark.getByText('Out (Success): data and metadata').click();
    const blocks = mark.locator('details[open] .data-block');
    assert.match((await blocks.nth(0).textContent()) ?? '', /"warm": true/);
    assert.match((await blocks.nth(1).textContent()) ?? '', /"city": "Oslo"/);
    await mark.getByText(/^In: data and metadata/).click();
    assert.match((await mark.locator('details summary').first().textContent()) ?? '', /type WEATHER/);
    await screenshotAllModes(ui, 'rules-run');
  });

  it('a cold message takes the False branch: only the filter is logged', async () => {
    await ui.page.getByLabel('Data', { exact: true }).fill('{"temperature": 5}');
    await ui.page.getByRole('button', { name: 'Run', exact: true }).click();
    await ui.page.locator('.node-log[data-node="check"] .badge', { hasText: 'False' }).waitFor();
    assert.equal(await ui.page.locator('.node-log[data-node="mark"]').count(), 0);
  });

  it('a validation error from the server is shown and marked at the node it names', async () => {
    const text = await editor().inputValue();
    await editor().fill(text.replace('"type": "jsTransform"', '"type": "noSuchNode"'));
    await ui.page.getByRole('button', { name: 'Save' }).click();
    const alert = ui.page.getByRole('alert').filter({ hasText: 'unknown node type' });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /node "mark"/);
    // The marked lines are exactly the node's object in the text.
    const lines = (await editor().inputValue()).split('\n');
    const marked = await ui.page.locator('.code-line-number.marked').allTextContents();
    assert.ok(marked.length >= 5, 'the whole node is marked');
    const markedText = marked.map((line) => lines[Number(line) - 1]).join('\n');
    assert.match(markedText, /"id": "mark"/);
    assert.match(markedText, /"type": "noSuchNode"/);
    assert.doesNotMatch(markedText, /"id": "check"/);
    assert.equal(await editor().getAttribute('aria-invalid'), 'true');
    await alert.getByRole('button', { name: 'Go to node "mark"' }).waitFor();
    await screenshotAllModes(ui, 'rules-error');
    // Nothing was saved: the stored chain still runs the old node.
    const chain = (await server.app.inject({ method: 'GET', url: '/api/v1/rules/warm-check' })).json();
    assert.equal(chain.metadata.nodes[1].type, 'jsTransform');
  });

  it('a configuration error puts the caret on the key the path names', async () => {
    const text = (await editor().inputValue()).replace('"type": "noSuchNode"', '"type": "restApiCall"');
    await editor().fill(text);
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByRole('alert').filter({ hasText: 'restEndpointUrlPattern' }).waitFor();
    const caretLine = await editor().evaluate((area) => {
      const textarea = area as unknown as { value: string; selectionStart: number };
      return textarea.value.slice(0, textarea.selectionStart).split('\n').length;
    });
    assert.match(
      text.split('\n')[caretLine - 1] ?? '',
      /"configuration"/,
      'no such key in the node: the caret is on the nearest one of the path',
    );
  });

  it('broken JSON is marked at its line before anything is sent', async () => {
    await editor().fill('{\n  "ruleChain": {"id": "warm-check"},\n  "metadata": {,}\n}');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByRole('alert').filter({ hasText: 'Not valid JSON' }).waitFor();
    assert.deepEqual(await ui.page.locator('.code-line-number.marked').allTextContents(), ['3']);
  });

  it('reloads the chain from its file, which drops the unsaved edit', async () => {
    await ui.page.getByRole('button', { name: 'Reload chain' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Reloaded' }).waitFor();
    assert.match(await editor().inputValue(), /"jsTransform"/);
    assert.equal(await ui.page.locator('.code-line-number.marked').count(), 0);
  });

  it('filters the list by agent and by loaded', async () => {
    await ui.page.getByLabel('Filter by agent').selectOption('main');
    await ui.page.locator('[data-chain="warm-check"]').waitFor({ state: 'detached' });
    await ui.page.getByLabel('Filter by agent').selectOption('');
    await ui.page.locator('[data-chain="warm-check"]').waitFor();
    await ui.page.getByLabel('Loaded only').check();
    await ui.page.locator('[data-chain="warm-check"]').waitFor();
    await screenshotAllModes(ui, 'rules-list');
    await ui.page.getByLabel('Loaded only').uncheck();
  });

  it('deletes a chain only after confirmation', async () => {
    await ui.page.getByRole('button', { name: 'Delete chain' }).click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete rule chain' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal(
      (await server.app.inject({ method: 'GET', url: '/api/v1/rules/warm-check' })).statusCode,
      200,
    );
    await ui.page.getByRole('button', { name: 'Delete chain' }).click();
    await confirm.getByRole('button', { name: 'Delete chain' }).click();
    await ui.page.waitForURL(/\/ui\/rules$/);
    await ui.page.locator('[data-chain="warm-check"]').waitFor({ state: 'detached' });
    assert.equal(
      (await server.app.inject({ method: 'GET', url: '/api/v1/rules/warm-check' })).statusCode,
      404,
    );
  });

  it('creates a chain that belongs to an agent', async () => {
    await ui.page.goto('/ui/rules/new');
    const text = await editor().inputValue();
    await editor().fill(text.replace('"my-chain"', '"main-helper"'));
    await ui.page.getByLabel('Belongs to').selectOption('main');
    await ui.page.getByRole('button', { name: 'Create' }).click();
    await ui.page.waitForURL(/\/ui\/rules\/main-helper$/);
    await ui.page.locator('[data-chain="main-helper"]', { hasText: 'of main' }).waitFor();
    const owned = await server.app.inject({ method: 'GET', url: '/api/v1/agents/main/rules/main-helper' });
    assert.equal(owned.statusCode, 200);
  });

  it('an agent chain opens in the editor without a delete button', async () => {
    await ui.page.locator('[data-chain="main"]').click();
    await ui.page.waitForURL(/\/ui\/rules\/main$/);
    await editor().waitFor();
    assert.match(await editor().inputValue(), /"ai\/agent"/);
    assert.equal(await ui.page.getByRole('button', { name: 'Delete chain' }).count(), 0);
  });

  it('at 375 px the editor fits the width', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.goto('/ui/rules/main');
    await editor().waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
    await ui.page.getByRole('link', { name: 'Back to the rule chain list' }).click();
    await ui.page.locator('[data-chain="main"]').waitFor();
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
