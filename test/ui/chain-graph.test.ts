// The visual chain editor in a real browser: a three-node chain built from an empty one without
// touching JSON (nodes from the palette, forms, connections with relations), saved, reloaded as the
// same graph, run with each node coloured by its relation, and a bad configuration shown at its node.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import {
  assertNoConsoleErrors,
  DESKTOP,
  openPage,
  PHONE,
  screenshotAllModes,
  steadyBox,
  uiSuite,
  type UiPage,
  pageUntil,
} from './browser.ts';

interface StoredNode {
  id: string;
  type: string;
  name?: string;
  configuration?: Record<string, unknown>;
  additionalInfo?: { layoutX?: number; layoutY?: number };
}

describe('web UI: the visual chain editor', () => {
  let server: TestApp;
  let ui: UiPage;

  // Saving a broken chain answers 400 on purpose.
  uiSuite(
    {
      page: { allowErrors: [/status of 400/] },
      // A chain with a secret, and no debug mode: its runs are seen live only.
      setUp: async (app) => {
        const created = await app.app.inject({
          method: 'POST',
          url: '/api/v1/rules',
          payload: {
            ruleChain: { id: 'mailer', name: 'Mailer' },
            metadata: {
              nodes: [
                {
                  id: 'mail',
                  type: 'sendEmail',
                  name: 'Mail',
                  configuration: {
                    smtpHost: '127.0.0.1',
                    smtpPort: 9,
                    password: 's3cret-pass',
                    connectTimeout: 1,
                    email: { from: 'a@example.com', to: 'b@example.com', subject: 'hi', body: 'x' },
                  },
                },
              ],
              // An endpoint the graph does not draw: listed, and kept through the graph's saves.
              endpoints: [
                { id: 'hook', type: 'http', routers: [{ params: ['POST'], from: { path: '/mailer' } }] },
              ],
            },
          },
        });
        assert.equal(created.statusCode, 201, created.body);
      },
    },
    (suite) => ({ server, ui } = suite),
  );

  const graphNode = (id: string) => ui.page.locator(`.react-flow__node[data-id="${id}"]`);
  const panel = () => ui.page.getByRole('region', { name: /^Node / });
  const stored = async () =>
    (await server.app.inject({ method: 'GET', url: '/api/v1/rules/graph-built' })).json() as {
      ruleChain: { id: string; name: string };
      metadata: { nodes: StoredNode[]; connections: Array<{ fromId: string; toId: string; type: string }> };
    };

  it('builds a three-node chain from an empty one without touching JSON', async () => {
    await ui.page.goto('/ui/rules/new');
    await ui.page.getByRole('tab', { name: 'Graph' }).waitFor();
    assert.equal(await ui.page.getByRole('tab', { name: 'Graph' }).getAttribute('aria-selected'), 'true');
    await ui.page.getByRole('button', { name: 'Start empty' }).click();
    await ui.page.getByLabel('Chain id').fill('graph-built');
    await ui.page.getByLabel('Chain name').fill('Built in the graph');

    // A filter, typed in its form.
    await ui.page.getByRole('button', { name: 'Add jsFilter node' }).click();
    await graphNode('jsFilter1').waitFor();
    // The new node's form has the focus: its name field first.
    await pageUntil(ui.page, "document.activeElement?.id === 'graph-node-name'");
    await ui.page.getByLabel('Name', { exact: true }).fill('Is it warm?');
    await ui.page.getByLabel(/^Filter script/).fill('return msg.temperature > 20;');

    // A transform, its script written in the JSON view beside the form.
    await ui.page.getByRole('button', { name: 'Add jsTransform node' }).click();
    await graphNode('jsTransform1').waitFor();
    await ui.page.getByLabel('Name', { exact: true }).fill('Mark warm');
    await ui.page.getByLabel('Configuration JSON').fill(
      JSON.stringify({
        jsScript: "msg.warm = true;\nreturn {'msg': msg, 'metadata': metadata, 'msgType': msgType};",
      }),
    );
    // The form beside it shows the same script.
    assert.match(await ui.page.getByLabel(/^Transform script/).inputValue(), /msg\.warm = true/);

    // A log node, renamed by its id field.
    await ui.page.getByRole('button', { name: 'Add log node' }).click();
    await graphNode('log1').waitFor();
    await ui.page.getByLabel('Node id').fill('audit');
    await ui.page.getByLabel('Node id').press('Enter');
    await graphNode('audit').waitFor();

    // Connect the filter to the transform by dragging from handle to handle; the relation is chosen
    // in the dialog.
    await ui.page.getByRole('button', { name: 'Close the node editor' }).click();
    const from = graphNode('jsFilter1').locator('.react-flow__handle.source');
    const to = graphNode('jsTransform1').locator('.react-flow__handle.target');
    await from.hover();
    await ui.page.mouse.down();
    const box = await to.boundingBox();
    assert.ok(box);
    await ui.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 8 });
    await ui.page.mouse.up();
    const dialog = ui.page.getByRole('dialog', { name: 'Connect with relation' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'True', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await ui.page.locator('.react-flow__edge-text', { hasText: 'True' }).waitFor();

    // Connect the transform to the log from the transform's form, with the keyboard.
    await graphNode('jsTransform1').focus();
    await ui.page.keyboard.press('Enter');
    await panel().waitFor();
    await panel().getByLabel('Relation').fill('Success');
    await panel().getByLabel('To node').selectOption('audit');
    await panel().getByRole('button', { name: 'Connect' }).click();
    await panel().getByText('→ audit').waitFor();

    await ui.page.getByRole('button', { name: 'Create' }).click();
    await ui.page.waitForURL(/\/ui\/rules\/graph-built$/);
    const chain = await stored();
    assert.equal(chain.ruleChain.name, 'Built in the graph');
    assert.deepEqual(
      chain.metadata.nodes.map((node) => [node.id, node.type, node.name]),
      [
        ['jsFilter1', 'jsFilter', 'Is it warm?'],
        ['jsTransform1', 'jsTransform', 'Mark warm'],
        ['audit', 'log', 'Log'],
      ],
    );
    assert.deepEqual(
      chain.metadata.connections.map((item) => `${item.fromId}-${item.type}->${item.toId}`),
      ['jsFilter1-True->jsTransform1', 'jsTransform1-Success->audit'],
    );
    assert.equal(chain.metadata.nodes[0]?.configuration?.['jsScript'], 'return msg.temperature > 20;');
    for (const node of chain.metadata.nodes) {
      assert.equal(typeof node.additionalInfo?.layoutX, 'number', `${node.id} has its position`);
      assert.equal(typeof node.additionalInfo?.layoutY, 'number', `${node.id} has its position`);
    }
  });

  it('a moved node keeps its place through a save and a reload', async () => {
    const node = graphNode('audit');
    const before = await steadyBox(node);
    await ui.page.mouse.move(before.x + before.width / 2, before.y + 12);
    await ui.page.mouse.down();
    await ui.page.mouse.move(before.x + before.width / 2, before.y + 92, { steps: 8 });
    await ui.page.mouse.up();
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Saved' }).waitFor();
    const moved = (await stored()).metadata.nodes.find((item) => item.id === 'audit');
    const first = (await stored()).metadata.nodes.find((item) => item.id === 'jsFilter1');
    assert.ok(moved?.additionalInfo?.layoutY !== undefined && first?.additionalInfo?.layoutY !== undefined);

    await ui.page.reload();
    for (const id of ['jsFilter1', 'jsTransform1', 'audit']) await graphNode(id).waitFor();
    await ui.page.locator('.react-flow__edge-text', { hasText: 'True' }).waitFor();
    await ui.page.locator('.react-flow__edge-text', { hasText: 'Success' }).waitFor();
    assert.equal(await ui.page.locator('.react-flow__edge').count(), 2);
    assert.match((await graphNode('jsFilter1').textContent()) ?? '', /Is it warm\?.*jsFilter/);
    // The positions on screen are the stored ones: the moved node is lower than the first by as much.
    const [a, b] = await Promise.all([
      graphNode('jsFilter1').boundingBox(),
      graphNode('audit').boundingBox(),
    ]);
    assert.ok(a && b);
    assert.ok(b.y - a.y > 40, 'the moved node is drawn where it was left');
  });

  it('runs with a test message: each node coloured by its relation, timing on hover', async () => {
    await ui.page.getByLabel('Data', { exact: true }).fill('{"temperature": 25}');
    await ui.page.getByRole('button', { name: 'Run', exact: true }).click();
    await ui.page.getByLabel('Run result').filter({ hasText: '"warm": true' }).waitFor();
    const filter = graphNode('jsFilter1').locator('.graph-node');
    await ui.page.locator('.graph-node[data-node-id="audit"][data-outcome="success"]').waitFor();
    assert.equal(await filter.getAttribute('data-outcome'), 'true');
    assert.equal(await filter.getAttribute('data-relations'), 'True');
    assert.equal(
      await graphNode('jsTransform1').locator('.graph-node').getAttribute('data-relations'),
      'Success',
    );
    assert.match((await filter.getAttribute('title')) ?? '', /True · [\d.]+ ms/);
    await filter.hover();
    await filter.locator('.graph-node-timing').waitFor();
    await ui.page.locator('.react-flow__edge.taken').first().waitFor();
    await screenshotAllModes(ui, 'chain-graph-run');

    // A cold message: the filter takes False and the rest of the chain does not run.
    await ui.page.getByLabel('Data', { exact: true }).fill('{"temperature": 5}');
    await ui.page.getByRole('button', { name: 'Run', exact: true }).click();
    await ui.page.locator('.graph-node[data-node-id="jsFilter1"][data-outcome="false"]').waitFor();
    assert.equal(await graphNode('audit').locator('.graph-node').getAttribute('data-outcome'), 'none');
  });

  it('a save with a bad node configuration shows the error at that node', async () => {
    await graphNode('jsFilter1').click();
    await panel()
      .getByLabel(/^Filter script/)
      .fill('');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    const atNode = graphNode('jsFilter1').locator('.graph-node-error');
    await atNode.waitFor();
    assert.match((await atNode.textContent()) ?? '', /^configuration\.jsScript: /);
    // The whole message, naming the node, is above the editor.
    await ui.page
      .getByRole('alert')
      .filter({ hasText: 'node "jsFilter1": configuration.jsScript' })
      .waitFor();
    assert.equal(await graphNode('jsTransform1').locator('.graph-node-error').count(), 0);
    // The form shows it under the field the path names.
    const field = panel().locator('[data-field="jsScript"]');
    await field.locator('.field-error').waitFor();
    assert.doesNotMatch((await field.locator('.field-error').textContent()) ?? '', /configuration/);
    assert.equal(await field.locator('textarea').getAttribute('aria-invalid'), 'true');
    await screenshotAllModes(ui, 'chain-graph-error');
    // Nothing was saved.
    assert.equal(
      (await stored()).metadata.nodes[0]?.configuration?.['jsScript'],
      'return msg.temperature > 20;',
    );
  });

  it('a secret stays write-only: shown as set, kept when saved unchanged, replaced when typed', async () => {
    await ui.page.goto('/ui/rules/mailer');
    await ui.page.getByRole('list', { name: 'Endpoints' }).getByText('http POST /mailer').waitFor();
    await graphNode('mail').click();
    const password = panel().getByLabel('Password');
    assert.equal(await password.getAttribute('type'), 'password');
    assert.equal(await password.inputValue(), '');
    assert.equal(await password.getAttribute('placeholder'), 'set: leave empty to keep it');
    assert.match(await panel().getByLabel('Configuration JSON').inputValue(), /"password": "\*\*\*"/);
    assert.doesNotMatch(await ui.page.content(), /s3cret-pass/);
    await panel().getByLabel('Name', { exact: true }).fill('Mail out');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Saved' }).last().waitFor();
    let file = await readFile(join(server.dir, 'data', 'rules', 'mailer.json'), 'utf8');
    assert.match(file, /"Mail out"/);
    assert.match(file, /s3cret-pass/, 'saving the *** placeholder keeps the stored secret');
    assert.match(file, /"\/mailer"/, 'the endpoint is kept');
    await panel().getByLabel('Password').fill('n3w-pass');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    // Saved once the editor shows the chain the server answered: the secret back to a blank field.
    // (The Save button alone is no sign: it is off while the save is in flight too.)
    await pageUntil(ui.page, "document.querySelector('[data-field=\"password\"] input')?.value === ''");
    file = await readFile(join(server.dir, 'data', 'rules', 'mailer.json'), 'utf8');
    assert.match(file, /n3w-pass/);
    assert.doesNotMatch(file, /s3cret-pass/);

    // Stored secrets are kept by node id: a renamed node's *** is refused, at its field.
    await panel().getByLabel('Node id').fill('mail2');
    await panel().getByLabel('Node id').press('Enter');
    await graphNode('mail2').waitFor();
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await panel().locator('[data-field="password"] .field-error').waitFor();
    assert.match(
      (await graphNode('mail2').locator('.graph-node-error').textContent()) ?? '',
      /stored secret/,
    );
    await ui.page.getByRole('button', { name: 'Reload chain' }).click();
    await graphNode('mail').waitFor();
  });

  it('runs without debug mode: the graph is coloured live from the event stream', async () => {
    await ui.page.locator('.graph-canvas[data-live="true"]').waitFor();
    await ui.page.getByRole('button', { name: 'Run', exact: true }).click();
    // The mail server is not there: the node fails, shown red, with no run log to read it from.
    await ui.page.locator('.graph-node[data-node-id="mail"][data-outcome="failure"]').waitFor();
    await ui.page.getByText('Run logs need debug mode').waitFor();
    assert.match((await graphNode('mail').locator('.graph-node').getAttribute('title')) ?? '', /Failure/);
  });

  it('works from the keyboard: add, tab through the form, select, Delete, Esc', async () => {
    await ui.page.getByLabel('Find a node type').fill('log');
    await ui.page.keyboard.press('Tab');
    assert.equal(
      await ui.page.evaluate("document.activeElement?.getAttribute('aria-label')"),
      'Add log node',
    );
    await ui.page.keyboard.press('Enter');
    await graphNode('log1').waitFor();
    const active = () => ui.page.evaluate<string>("document.activeElement?.id ?? ''");
    await pageUntil(ui.page, "document.activeElement?.id === 'graph-node-name'");
    await ui.page.keyboard.press('Tab');
    assert.equal(await active(), 'graph-config-log1-jsScript');
    await ui.page.keyboard.press('Tab');
    assert.equal(await active(), 'graph-config-json');

    // A connection drawn by mouse, then Esc: the dialog closes and nothing is connected.
    const from = graphNode('mail').locator('.react-flow__handle.source');
    const to = graphNode('log1').locator('.react-flow__handle.target');
    await from.hover();
    await ui.page.mouse.down();
    const box = await to.boundingBox();
    assert.ok(box);
    await ui.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 8 });
    await ui.page.mouse.up();
    const dialog = ui.page.getByRole('dialog', { name: 'Connect with relation' });
    await dialog.waitFor();
    await ui.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await ui.page.locator('.react-flow__edge').count(), 0);

    // Select the node from the keyboard and delete it.
    await graphNode('log1').focus();
    await ui.page.keyboard.press('Enter');
    await ui.page.getByRole('region', { name: 'Node log1' }).waitFor();
    await ui.page.locator('.react-flow__node.selected[data-id="log1"]').waitFor();
    await graphNode('log1').focus();
    await ui.page.keyboard.press('Delete');
    await graphNode('log1').waitFor({ state: 'detached' });
    await ui.page.getByRole('region', { name: 'Chain settings' }).waitFor();
    await ui.page.getByRole('tab', { name: 'JSON' }).click();
    assert.doesNotMatch(await ui.page.getByRole('textbox', { name: 'Rule chain JSON' }).inputValue(), /log1/);
    await ui.page.getByRole('tab', { name: 'Graph' }).click();
    // No draft left behind: the next test's navigation must not meet the unsaved-changes prompt.
    await ui.page.getByRole('button', { name: 'Reload chain' }).click();
    await ui.page.locator('.toast-success', { hasText: 'Reloaded' }).waitFor();
  });

  it('loads the graph code on the Rule chains page only', async () => {
    const other = await openPage(ui.context.browser() ?? assert.fail('no browser'), server.url);
    const loaded: string[] = [];
    other.page.on('request', (request) => loaded.push(request.url()));
    await other.page.goto('/ui/chat');
    await other.page.getByRole('link', { name: 'Rule chains' }).waitFor();
    assert.ok(!loaded.some((url) => /chain-graph/.test(url)), 'the chat page fetches no graph code');
    await other.page.getByRole('link', { name: 'Rule chains' }).click();
    await other.page.getByRole('link', { name: /Mailer/ }).click();
    await other.page.locator('.react-flow__node[data-id="mail"]').waitFor();
    assert.ok(
      loaded.some((url) => /chain-graph-[\w-]+\.js$/.test(url)),
      'the graph code came with the page',
    );
    await other.close();
  });

  it('removes a connection with Delete, and another from the node form', async () => {
    // A chain of its own, so what earlier tests left (a draft, a failed save) cannot reach it.
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/rules',
      payload: {
        ruleChain: { id: 'edge-cut', name: 'Edge cut' },
        metadata: {
          nodes: [
            {
              id: 'jsFilter1',
              type: 'jsFilter',
              name: 'Filter',
              configuration: { jsScript: 'return true;' },
            },
            {
              id: 'jsTransform1',
              type: 'jsTransform',
              name: 'Transform',
              configuration: { jsScript: "return {'msg': msg, 'metadata': metadata, 'msgType': msgType};" },
            },
            { id: 'audit', type: 'log', name: 'Log' },
          ],
          connections: [
            { fromId: 'jsFilter1', toId: 'jsTransform1', type: 'True' },
            { fromId: 'jsTransform1', toId: 'audit', type: 'Success' },
          ],
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    await ui.page.goto('/ui/rules/edge-cut');
    const edges = ui.page.locator('.react-flow__edge');
    await edges.nth(1).waitFor();
    await ui.page.getByRole('group', { name: 'Connection jsFilter1 to jsTransform1 on True' }).focus();
    await ui.page.keyboard.press('Enter');
    // Delete acts on what the flow has selected: wait for the selection to reach it.
    await ui.page.locator('.react-flow__edge.selected').waitFor();
    await ui.page.keyboard.press('Delete');
    await ui.page.locator('.react-flow__edge-text', { hasText: 'True' }).waitFor({ state: 'detached' });
    await graphNode('jsTransform1').click();
    await panel().getByRole('button', { name: 'Remove connection Success to audit' }).click();
    await edges.first().waitFor({ state: 'detached' });
    await ui.page.getByRole('tab', { name: 'JSON' }).click();
    const text = await ui.page.getByRole('textbox', { name: 'Rule chain JSON' }).inputValue();
    assert.deepEqual(JSON.parse(text).metadata.connections, []);
    await ui.page.getByRole('tab', { name: 'Graph' }).click();
    await ui.page.getByRole('button', { name: 'Reload chain' }).click();
    await edges.nth(1).waitFor();
  });

  it('at 375 px the graph, its node types and the form fit the width', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.reload();
    await graphNode('audit').click();
    await panel().waitFor();
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
    await ui.page.setViewportSize(DESKTOP);
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
