// The management pages in Chinese: with a Chinese browser the setup wizard, Settings, Agents,
// Channels, Cron, Skills, Users, Usage, Logs and Monitor show Chinese headings, labels and buttons, and no heading is left in English.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertNoConsoleErrors, uiSuite, type UiPage } from './browser.ts';

/** Every heading on the page that has no Chinese character in it. */
async function englishHeadings(ui: UiPage): Promise<string[]> {
  const texts = await ui.page.locator('h1, h2, h3, th, dt, .field-label').allInnerTexts();
  return texts.map((text) => text.trim()).filter((text) => text !== '' && !/[\u4e00-\u9fff]/.test(text));
}

describe('web UI: the management pages in Chinese', () => {
  let ui: UiPage;
  uiSuite({ page: { locale: 'zh-CN' } }, (suite) => ({ ui } = suite));

  it('the setup wizard is in Chinese', async () => {
    await ui.page.goto('/ui/');
    await ui.page.waitForURL(/\/ui\/setup$/);
    await ui.page.getByRole('heading', { name: '欢迎使用 Agent Service' }).waitFor();
    const provider = ui.page.getByRole('form', { name: '模型服务商' });
    await provider.getByLabel('模型', { exact: true }).waitFor();
    await provider.getByLabel('API 密钥').waitFor();
    await provider.getByRole('button', { name: '测试并保存' }).waitFor();
    await provider.getByRole('button', { name: '暂时跳过' }).waitFor();
    await ui.page.getByText(/连接一个模型服务商/).waitFor();
    // "Base URL" is a product term and stays as it is; nothing else is English.
    assert.deepEqual(
      (await englishHeadings(ui)).filter((text) => text !== 'Base URL'),
      [],
    );
  });

  it('the Settings page is in Chinese', async () => {
    await ui.page.goto('/ui/settings');
    await ui.page.getByRole('heading', { name: '设置', exact: true }).waitFor();
    for (const heading of ['模型服务商', '安全', '你的 API 密钥', '密码', '服务器'])
      await ui.page.getByRole('heading', { name: heading, exact: true }).waitFor();
    await ui.page.getByRole('button', { name: '添加服务商' }).waitFor();
    await ui.page.getByRole('switch', { name: '要求登录' }).waitFor();
    await ui.page.getByText('还没有服务商', { exact: false }).waitFor();
    await ui.page.locator('dt', { hasText: '数据目录' }).waitFor();
    assert.deepEqual(await englishHeadings(ui), []);

    await ui.page.getByRole('button', { name: '添加服务商' }).click();
    const dialog = ui.page.getByRole('dialog', { name: '添加模型服务商' });
    await dialog.getByLabel('显示名称').waitFor();
    await dialog.getByText('兼容 OpenAI 的接口地址，通常以 /v1 结尾。').waitFor();
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // Switched to English, the same page reads as before.
    await ui.page.getByRole('combobox', { name: '语言' }).selectOption('en');
    await ui.page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await ui.page.getByRole('heading', { name: 'Model providers' }).waitFor();
    await ui.page.getByRole('switch', { name: 'Require sign-in' }).waitFor();
  });

  it('the Agents page and the agent editor are in Chinese', async () => {
    await ui.page.goto('/ui/agents');
    // The Settings test ended in English (remembered): back to Chinese.
    await ui.page.getByRole('combobox', { name: 'Language' }).selectOption('zh');
    await ui.page.getByRole('heading', { name: '智能体', exact: true }).waitFor();
    await ui.page.getByRole('link', { name: '新建智能体' }).waitFor();
    await ui.page.getByText('选择一个智能体进行编辑，或新建一个。').waitFor();
    await ui.page.getByRole('list', { name: '智能体列表' }).getByText('已加载').first().waitFor();

    await ui.page.goto('/ui/agents/main/model');
    const tabs = ui.page.getByRole('navigation', { name: '智能体设置分区' });
    for (const tab of ['基本', '模型', '提示词', '工具', '技能', '工作区', '记忆'])
      await tabs.getByRole('link', { name: tab, exact: true }).waitFor();
    await ui.page.getByLabel('最大步数').waitFor();
    await ui.page.getByRole('button', { name: '重新加载智能体' }).waitFor();
    // The agent's own name ("Main agent") and the ID field are data and a product term.
    const allowed = new Set(['ID', 'Main agent']);
    assert.deepEqual(
      (await englishHeadings(ui)).filter((text) => !allowed.has(text)),
      [],
    );
    await tabs.getByRole('link', { name: '工具', exact: true }).click();
    await ui.page.getByText('内置工具').waitFor();
    await ui.page.getByRole('button', { name: '添加 MCP 服务器' }).waitFor();
    await tabs.getByRole('link', { name: '工作区', exact: true }).click();
    await ui.page.getByText('打开一个文件进行编辑。').waitFor();
    await tabs.getByRole('link', { name: '记忆', exact: true }).click();
    await ui.page.getByRole('heading', { name: '记忆文件' }).waitFor();
  });

  it('the Channels, Cron, Skills, Users, Usage, Logs and Monitor pages are in Chinese', async () => {
    const pages: Array<{ path: string; heading: string; also: string[] }> = [
      { path: '/ui/channels', heading: '渠道', also: ['绑定'] },
      { path: '/ui/cron', heading: '定时任务', also: [] },
      { path: '/ui/skills', heading: '技能', also: [] },
      { path: '/ui/users', heading: '用户', also: [] },
      { path: '/ui/usage', heading: '用量', also: ['预算', '智能体排行'] },
      { path: '/ui/logs', heading: '日志', also: [] },
      { path: '/ui/monitor', heading: '监控', also: ['进行中的对话轮次', '规则链运行'] },
    ];
    for (const { path, heading, also } of pages) {
      await ui.page.goto(path);
      await ui.page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      for (const name of also) await ui.page.getByRole('heading', { name, exact: true }).waitFor();
      await ui.page.getByText('加载中…').first().waitFor({ state: 'hidden' });
      // Platform names (Telegram, Slack…) come from the server and are names, not UI text.
      const english = (await englishHeadings(ui)).filter(
        (text) => !(path === '/ui/channels' && /^[A-Z][\w ./()-]*$/.test(text)),
      );
      assert.deepEqual(english, [], `English on ${path}`);
    }
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
