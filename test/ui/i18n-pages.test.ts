// The management pages in Chinese: with a Chinese browser the setup wizard and the Settings page
// show Chinese headings, labels and buttons, and no heading is left in English.
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

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
