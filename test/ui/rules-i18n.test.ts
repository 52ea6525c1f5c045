// The Rule chains page, its graph editor and the Monitor's turn trace in Chinese: with a Chinese
// browser they show Chinese labels, buttons, help and node type names, and none of the pages' known
// English texts is left (in the text or in aria-labels, titles and placeholders). Type ids (jsFilter),
// relation names (True, Success), JSON and the chain's own data stay as they are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, uiSuite, type UiPage } from './browser.ts';

/** English texts of the Rule chains page and the graph editor, none of which may be left in Chinese. */
const RULES_ENGLISH = [
  'Rule chains',
  'New chain',
  'All chains',
  'Loaded only',
  'Rule chain list',
  'Rule chain editor',
  'Choose a rule chain to edit and run it, or create a new one.',
  'Editor view',
  'Graph',
  'Reload',
  'Reload chain',
  'Delete',
  'Delete chain',
  'Save',
  'Create',
  'Back to the rule chain list',
  'New rule chain',
  'Start empty',
  'Belongs to',
  'No agent (a global chain)',
  'Run the chain',
  'Run with a test message',
  'Message type',
  'Metadata',
  'Data',
  'Run',
  'Result',
  'Run result',
  'Run log',
  'Recent runs',
  'Node log',
  'In: data and metadata',
  'Run succeeded',
  'Node types',
  'Find a node type',
  'Chain settings',
  'Chain id',
  'Chain name',
  'Debug mode (keep a run log of every node)',
  'Run colours',
  'other relation',
  'Add a node from the list of node types.',
  'Configuration',
  'Configuration JSON',
  'Connections out',
  'Relation',
  'To node',
  'Connect',
  'Node id',
  'Name',
  'Close the node editor',
  'Make it the first node',
  'first node',
  'Delete node',
  'first',
  'Connect with relation',
  'Relations of the node type',
  'Any name the node sends on',
  'Cancel',
  'Zoom In',
  'Zoom Out',
  'Fit View',
  'Control Panel',
  'Press enter or space to select',
  // node types, their categories and fields, as the server sends them (`flow` is also a type id)
  'Script filter',
  'Script transform',
  'Routes the message to True or False',
  'Filter script',
  'Transform script',
  'Body of function Filter',
  'filter',
  'transform',
  'AI agent',
];

/**
 * The English texts of `english` left on the page: a text of an element or an aria-label, title or
 * placeholder equal to one, or (for a longer one) containing it.
 */
async function englishLeft(ui: UiPage, english: string[]): Promise<string[]> {
  const texts = await ui.page.evaluate(() => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent && parent.closest('textarea, script, style, [hidden]') === null)
        found.push((node.textContent ?? '').trim());
    }
    for (const element of document.body.querySelectorAll('[aria-label], [title], [placeholder]'))
      for (const name of ['aria-label', 'title', 'placeholder'])
        if (element.hasAttribute(name)) found.push((element.getAttribute(name) ?? '').trim());
    for (const element of document.body.querySelectorAll('[aria-describedby]'))
      for (const id of (element.getAttribute('aria-describedby') ?? '').split(' '))
        found.push((document.getElementById(id)?.textContent ?? '').trim());
    return found.filter((text) => text !== '');
  });
  return english.filter((phrase) =>
    texts.some((text) => text === phrase || (phrase.length > 12 && text.includes(phrase))),
  );
}

describe('web UI: the Rule chains page and the Monitor trace in Chinese', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: '好的。' });
  });
  after(() => upstream.close());
  uiSuite(
    {
      server: () => ({ config: { models: upstream.modelsConfig() } }),
      page: { locale: 'zh-CN' },
      // A chain with a filter and a transform, in debug mode: its run log shows both nodes.
      setUp: async (app) => {
        const created = await app.app.inject({
          method: 'POST',
          url: '/api/v1/rules',
          payload: {
            ruleChain: { id: 'warm-check', name: 'Warm check', debugMode: true },
            metadata: {
              nodes: [
                {
                  id: 'check',
                  type: 'jsFilter',
                  name: 'Is it warm?',
                  configuration: { jsScript: 'return msg.temperature > 20;' },
                },
                {
                  id: 'mark',
                  type: 'jsTransform',
                  name: 'Mark warm',
                  configuration: {
                    jsScript:
                      "msg.warm = true;\nreturn {'msg': msg, 'metadata': metadata, 'msgType': msgType};",
                  },
                },
              ],
              connections: [{ fromId: 'check', toId: 'mark', type: 'True' }],
            },
          },
        });
        assert.equal(created.statusCode, 201, created.body);
      },
    },
    (suite) => ({ server, ui } = suite),
  );

  it('the rule chain list is in Chinese', async () => {
    await ui.page.goto('/ui/rules');
    await ui.page.getByRole('heading', { name: '规则链', exact: true, level: 1 }).waitFor();
    await ui.page.getByRole('link', { name: '新建规则链' }).waitFor();
    await ui.page.getByLabel('仅已加载').waitFor();
    await ui.page.getByRole('list', { name: '规则链列表' }).getByText('Warm check').waitFor();
    await ui.page.getByRole('list', { name: '规则链列表' }).getByText('main · 智能体').waitFor();
    await ui.page.getByText('选择一条规则链进行编辑和运行，或新建一条。').waitFor();
    assert.deepEqual(await englishLeft(ui, RULES_ENGLISH), []);

    await ui.page.getByRole('link', { name: '新建规则链' }).click();
    await ui.page.getByRole('heading', { name: '新建规则链', level: 2 }).waitFor();
    await ui.page.getByLabel('所属').waitFor();
    await ui.page.getByRole('button', { name: '从空白开始' }).waitFor();
    await ui.page.getByRole('button', { name: '创建' }).waitFor();
    await ui.page.getByRole('tab', { name: '图形' }).waitFor();
    await ui.page.getByRole('region', { name: '规则链设置' }).waitFor();
    assert.deepEqual(await englishLeft(ui, RULES_ENGLISH), []);
  });

  it('a chain in the graph editor, its node form, the connection dialog and a run are in Chinese', async () => {
    await ui.page.goto('/ui/rules/warm-check');
    assert.equal(await ui.page.getByRole('tab', { name: '图形' }).getAttribute('aria-selected'), 'true');
    const palette = ui.page.getByRole('navigation', { name: '节点类型' });
    await palette.getByRole('heading', { name: '过滤', exact: true }).waitFor();
    await palette.getByRole('button', { name: '添加 jsFilter 节点' }).getByText('脚本过滤').waitFor();
    await palette.getByPlaceholder('查找节点类型').fill('脚本');
    await palette.getByRole('button', { name: '添加 jsTransform 节点' }).waitFor();
    assert.equal(await palette.getByRole('button', { name: '添加 log 节点' }).count(), 0);
    await palette.getByPlaceholder('查找节点类型').fill('');
    const settings = ui.page.getByRole('region', { name: '规则链设置' });
    await settings.getByLabel('规则链 ID').waitFor();
    await settings.getByText('已保存的规则链保留其 ID。').waitFor();
    await settings.getByLabel('调试模式（为每个节点保留运行日志）').waitFor();
    await ui.page.getByRole('button', { name: '放大' }).waitFor();

    // Run it: the run panel, its result and log, and the graph's run status.
    const run = ui.page.getByRole('region', { name: '运行规则链' });
    await run.getByRole('heading', { name: '用测试消息运行' }).waitFor();
    await run.getByLabel('消息类型').waitFor();
    await run.getByLabel('数据', { exact: true }).fill('{"temperature": 25}');
    await run.getByRole('button', { name: '运行', exact: true }).click();
    await run.getByLabel('运行结果').filter({ hasText: '"warm": true' }).waitFor();
    await run.getByText('结果', { exact: true }).waitFor();
    const nodeLog = run.getByLabel('节点日志');
    await nodeLog.getByText(/^2 个节点 · \d+ ms$/).waitFor();
    await nodeLog.locator('.node-log[data-node="mark"]').getByText('输出（Success）：数据和元数据').waitFor();
    await ui.page
      .getByRole('status')
      .filter({ hasText: /^运行成功，用时 \d+ ms$/ })
      .waitFor();
    assert.match((await run.getByLabel('最近的运行').innerText()) ?? '', /成功/);

    // A node's form: the type's label, description and fields in Chinese; its id and type stay.
    await ui.page.locator('.react-flow__node[data-id="check"]').click();
    const panel = ui.page.getByRole('region', { name: '节点 check' });
    await panel.getByRole('heading', { name: '脚本过滤' }).waitFor();
    await panel.getByText('按 JavaScript 函数的结果把消息路由到 True 或 False。').waitFor();
    await panel.getByLabel('节点 ID').waitFor();
    await panel.getByLabel('名称', { exact: true }).waitFor();
    await panel.getByLabel(/^过滤脚本/).waitFor();
    await panel
      .getByText('Filter(msg, metadata, msgType, dataType) 函数的函数体；返回 true 或 false。')
      .waitFor();
    await panel.getByLabel('配置 JSON').waitFor();
    await panel.getByRole('group', { name: '出向连接' }).getByText('→ mark').waitFor();
    await panel.getByRole('button', { name: '删除到 mark 的 True 连接' }).waitFor();
    await panel.getByText('首个节点').waitFor();
    await panel.getByRole('button', { name: '删除节点' }).waitFor();
    assert.deepEqual(await englishLeft(ui, RULES_ENGLISH), []);
    await panel.getByRole('button', { name: '关闭节点编辑器' }).click();

    // Drawing a connection asks for its relation in Chinese; cancelling draws nothing.
    const from = ui.page.locator('.react-flow__node[data-id="mark"] .react-flow__handle.source');
    const to = ui.page.locator('.react-flow__node[data-id="check"] .react-flow__handle.target');
    await from.hover();
    await ui.page.mouse.down();
    const box = await to.boundingBox();
    assert.ok(box);
    await ui.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 8 });
    await ui.page.mouse.up();
    const dialog = ui.page.getByRole('dialog', { name: '选择连接的关系' });
    await dialog.getByText(/^从 mark 到 check，当前一个节点在以下关系上发出消息时：$/).waitFor();
    await dialog
      .getByRole('group', { name: '节点类型的关系' })
      .getByRole('button', { name: 'Success' })
      .waitFor();
    await dialog.getByRole('textbox', { name: /^关系/ }).waitFor();
    assert.deepEqual(await englishLeft(ui, RULES_ENGLISH), []);
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // The JSON view is named in Chinese too.
    await ui.page.getByRole('tab', { name: 'JSON' }).click();
    await ui.page.getByRole('textbox', { name: '规则链 JSON' }).waitFor();
    await ui.page.getByRole('tab', { name: '图形' }).click();
    await ui.page.getByRole('region', { name: '规则链设置' }).waitFor();
  });

  it("the Monitor's turn trace is in Chinese", async () => {
    const answer = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: '你好' }] }),
    });
    assert.equal(answer.status, 200);
    await ui.page.goto('/ui/monitor');
    const finished = ui.page.getByRole('table', { name: '已完成的对话轮次' });
    await finished.locator('tr[data-turn]').first().getByRole('button').click();
    const dialog = ui.page.getByRole('dialog', { name: '对话轮次追踪' });
    const steps = dialog.getByLabel('追踪步骤');
    const model = steps.locator('[data-step="model"]').first();
    await model.waitFor();
    assert.match(await model.innerText(), /模型调用 fake \S+ · [\d.]+ s/);
    assert.match(await model.innerText(), /输入 \d+ \/ 输出 \d+/);
    const node = steps.locator('[data-step="node"]').first();
    assert.match(await node.innerText(), /节点 \S+（ai\/agent）\s*→ Success/);
    const head = await dialog.locator('.stack > p').first().innerText();
    assert.match(head, /^main，渠道 api/);
    assert.match(head, /输入 \d+ \/ 输出 \d+ token/);
    const english = /model call|first token|\d+ in \/|out tokens|\bon api\b|^\+[\d.]+ s\s+(node|tool) /m;
    for (const text of [head, ...(await steps.locator('li').allInnerTexts())])
      assert.doesNotMatch(text, english, text);
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
