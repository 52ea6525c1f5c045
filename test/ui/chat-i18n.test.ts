// The UI in Chinese: a browser whose language is Chinese gets the chat page, the navigation and the
// common dialogs in Chinese; the language switch in the top bar changes it at once and is
// remembered across reloads; an English browser gets English.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, openPage, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Chinese and English', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let browser: Browser;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: '你好！有什么可以帮你？' });
  });
  uiSuite(
    {
      server: () => ({ config: { models: upstream.modelsConfig() } }),
      page: { locale: 'zh-CN' },
    },
    (suite) => ({ server, browser, ui } = suite),
  );
  after(() => upstream?.close());

  it('a Chinese browser gets the chat page, navigation and dialogs in Chinese', async () => {
    await ui.page.goto('/ui/chat/main');
    await ui.page.waitForURL(/\/ui\/chat\/main\/ui-[0-9a-f]+$/);
    assert.equal(await ui.page.evaluate('document.documentElement.lang'), 'zh-CN');
    const nav = ui.page.getByRole('navigation', { name: '主导航' });
    for (const label of ['对话', '智能体', '规则链', '技能', '定时任务', '渠道', '设置'])
      await nav.getByRole('link', { name: label }).waitFor();
    await ui.page.getByRole('button', { name: '新对话' }).waitFor();
    await ui.page.getByText('开始和 Main agent 对话。').waitFor();
    const composer = ui.page.getByRole('textbox', { name: '消息' });
    assert.equal(await composer.getAttribute('placeholder'), '输入消息（Enter 发送，Shift+Enter 换行）');
    await ui.page.getByRole('searchbox', { name: '搜索对话' }).waitFor();
    await ui.page.getByLabel('显示已归档').waitFor();
    assert.match(await ui.page.title(), /^对话 · /);

    await composer.fill('你好');
    await ui.page.getByRole('button', { name: '发送' }).click();
    await ui.page.locator('.message-assistant', { hasText: '你好！有什么可以帮你？' }).waitFor();
    await ui.page.getByRole('button', { name: '重新生成' }).waitFor();
    await ui.page.getByRole('button', { name: '复制回答' }).waitFor();
    await ui.page.getByRole('button', { name: '编辑消息' }).click();
    await ui.page.getByRole('button', { name: '保存并发送' }).waitFor();
    await ui.page.getByRole('button', { name: '取消' }).click();
    await ui.page.getByRole('button', { name: '导出' }).click();
    await ui.page.getByRole('menuitem', { name: 'Markdown（.md）' }).waitFor();
    await ui.page.keyboard.press('Escape');
    const item = ui.page.locator('.session-item', { hasText: '你好' });
    await item.getByText(/2 条消息/).waitFor();
    await item.getByRole('button', { name: '置顶 你好' }).waitFor();
    await item.getByRole('button', { name: '删除 你好' }).click();
    const dialog = ui.page.getByRole('dialog', { name: '删除对话' });
    await dialog.getByText('删除“你好”及其 2 条消息？此操作无法撤销。').waitFor();
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Search in Chinese finds the message.
    await ui.page.getByRole('searchbox', { name: '搜索对话' }).fill('有什么');
    await ui.page.getByRole('heading', { name: '消息' }).waitFor();
    await ui.page.locator('.search-hit', { hasText: '有什么可以帮你' }).waitFor();
    await ui.page.getByRole('searchbox', { name: '搜索对话' }).fill('');
    await screenshotAllModes(ui, 'chat-zh');
  });

  it('the language switch changes the UI at once and is remembered', async () => {
    const switcher = ui.page.getByRole('combobox', { name: '语言' });
    await switcher.selectOption('en');
    await ui.page.getByRole('button', { name: 'New conversation' }).waitFor();
    await ui.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Rule chains' })
      .waitFor();
    assert.equal(await ui.page.evaluate('document.documentElement.lang'), 'en');
    await ui.page.reload();
    await ui.page.getByRole('button', { name: 'New conversation' }).waitFor();
    assert.equal(await ui.page.getByRole('combobox', { name: 'Language' }).inputValue(), 'en');
    await ui.page.getByRole('combobox', { name: 'Language' }).selectOption('zh');
    await ui.page.getByRole('button', { name: '新对话' }).waitFor();
  });

  it('an English browser gets English', async () => {
    const english = await openPage(browser, server.url, { locale: 'en-US' });
    try {
      await english.page.goto('/ui/chat/main');
      await english.page.getByRole('button', { name: 'New conversation' }).waitFor();
      assert.equal(await english.page.getByRole('combobox', { name: 'Language' }).inputValue(), 'en');
      assert.equal(
        await english.page.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder'),
        'Message (Enter to send, Shift+Enter: new line)',
      );
      assertNoConsoleErrors(english);
    } finally {
      await english.close();
    }
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
