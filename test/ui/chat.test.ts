// The Chat page in a real browser against a real server: agent picker, streaming with the tool-call
// panel, Markdown, history across reloads, conversations kept, renamed and deleted, drafts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import {
  assertNoConsoleErrors,
  PHONE,
  screenshotAllModes,
  uiSuite,
  type UiPage,
  pageUntil,
} from './browser.ts';

const MARKDOWN = [
  '## Files',
  '',
  'The workspace has **two** files:',
  '',
  '- `a.txt`',
  '- `b.md`',
  '',
  '```ts',
  'const answer: number = 42;',
  '```',
  '',
  '<img src="https://example.com/x.png"><script>window.hacked = 1</script>',
].join('\n');

describe('web UI: Chat', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Plain answer.' });
  });
  uiSuite(
    {
      server: () => ({ config: { models: upstream.modelsConfig() } }),
      // An agent whose id sorts before main: main must still be the one opened.
      setUp: async (started) => {
        const created = await started.app.inject({
          method: 'POST',
          url: '/api/v1/agents',
          payload: agentDefinition('alpha', { name: 'Alpha' }),
        });
        assert.equal(created.statusCode, 201, created.body);
      },
      page: { allowErrors: [/Failed to load resource: net::ERR_FAILED/] },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(() => upstream?.close());

  const composer = () => ui.page.getByRole('textbox', { name: 'Message' });
  const sessionItems = () => ui.page.locator('.session-list .session-item:not(:has-text("not sent yet"))');

  it('opens main (not the first agent alphabetically) in a new conversation', async () => {
    await ui.page.goto('/ui/');
    await ui.page.waitForURL(/\/ui\/chat\/main\/ui-[0-9a-f]+$/);
    assert.equal(await ui.page.getByRole('combobox', { name: 'Agent' }).inputValue(), 'main');
    await ui.page.getByText('Start a conversation with Main agent.').waitFor();
  });

  it('streams an answer with a live tool call panel, Markdown and highlighted code, and token usage', async () => {
    // Words before the tool call and after it: two paragraphs, live and after a reload.
    upstream.script(
      { lead: 'Let me look.', toolCalls: [{ id: 'call-1', name: 'glob', arguments: { pattern: '**/*' } }] },
      { text: MARKDOWN },
    );
    await composer().fill('list files');
    await composer().press('Enter');
    const tool = ui.page.locator('.tool-call[data-tool="glob"]');
    await tool.locator('.badge', { hasText: 'done' }).waitFor();
    await ui.page.locator('.markdown h2', { hasText: 'Files' }).waitFor();
    assert.equal(await ui.page.locator('.markdown strong').textContent(), 'two');
    assert.equal(await ui.page.locator('.markdown li code').count(), 2);
    assert.ok(
      (await ui.page.locator('.markdown pre code.hljs .hljs-keyword').count()) >= 1,
      'code is highlighted',
    );
    assert.equal(await ui.page.locator('.markdown img, .markdown script').count(), 0, 'sanitized');
    assert.equal(await ui.page.evaluate('window.hacked'), undefined);
    await ui.page.locator('.usage', { hasText: 'tokens' }).waitFor();
    // Arguments and result are collapsed until the call is opened.
    assert.equal(await tool.locator('.tool-body').isVisible(), false);
    await tool.locator('summary').click();
    assert.match((await tool.locator('.tool-pre').first().textContent()) ?? '', /"pattern": "\*\*\/\*"/);
    assert.match((await tool.locator('.tool-pre').nth(1).textContent()) ?? '', /no files match|\S/);
    await screenshotAllModes(ui, 'chat');
  });

  const answerView = async () => {
    const answer = ui.page.locator('.message-assistant').last();
    return {
      html: await answer.locator('.markdown').innerHTML(),
      paragraphs: await answer.locator('.markdown > p').allTextContents(),
      footer: await answer.locator('.usage').textContent(),
      title: await answer.locator('.usage').getAttribute('title'),
    };
  };

  it('shows the same history after a reload, from the server: same paragraphs, same token footer', async () => {
    const url = ui.page.url();
    const live = await answerView();
    assert.equal(
      live.paragraphs[0],
      'Let me look.',
      'the words before the tool call are their own paragraph',
    );
    assert.match(live.footer ?? '', /^\d+ \+ \d+ = \d+ tokens$/);
    await ui.page.reload();
    assert.equal(ui.page.url(), url);
    await ui.page.locator('.message-user', { hasText: 'list files' }).waitFor();
    await ui.page.locator('.markdown h2', { hasText: 'Files' }).waitFor();
    await ui.page.locator('.tool-call[data-tool="glob"] .badge', { hasText: 'done' }).waitFor();
    assert.deepEqual(await answerView(), live, 'the answer and its footer read the same after a reload');
    await sessionItems().first().waitFor();
    assert.equal(await sessionItems().count(), 1);
  });

  it('"New conversation" starts another one and keeps the old one', async () => {
    const first = ui.page.url();
    await ui.page.getByRole('button', { name: 'New conversation' }).click();
    await ui.page.waitForURL((url) => url.href !== first);
    await ui.page.getByText('Start a conversation with Main agent.').waitFor();
    await composer().fill('hello there');
    await ui.page.getByRole('button', { name: 'Send' }).click();
    await ui.page.locator('.markdown', { hasText: 'Plain answer.' }).waitFor();
    await pageUntil(ui.page, "document.querySelectorAll('.session-list .session-item').length === 2");
    // The first conversation is still on the server, with its messages.
    await sessionItems().filter({ hasText: 'list files' }).locator('.session-link').click();
    await ui.page.waitForURL(first);
    await ui.page.locator('.markdown h2', { hasText: 'Files' }).waitFor();
    const listed = await server.app.inject({ method: 'GET', url: '/api/v1/agents/main/sessions' });
    assert.equal(listed.json().total, 2);
  });

  it('renames a conversation and deletes one only after confirmation', async () => {
    const item = sessionItems().filter({ hasText: 'hello there' });
    await item.getByRole('button', { name: /^Rename/ }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Rename conversation' });
    await dialog.getByRole('textbox').fill('Greetings');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await sessionItems().filter({ hasText: 'Greetings' }).waitFor();

    await sessionItems()
      .filter({ hasText: 'Greetings' })
      .getByRole('button', { name: /^Delete/ })
      .click();
    const confirm = ui.page.getByRole('dialog', { name: 'Delete conversation' });
    await confirm.waitFor();
    await screenshotAllModes(ui, 'chat-confirm-delete');
    await ui.page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    assert.equal(await sessionItems().count(), 2, 'Esc cancels: nothing deleted');
    await sessionItems()
      .filter({ hasText: 'Greetings' })
      .getByRole('button', { name: /^Delete/ })
      .click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    // A locator wait (pageUntil would do too; not waitForFunction("..."), see pageUntil).
    await sessionItems().nth(1).waitFor({ state: 'detached' });
    const listed = await server.app.inject({ method: 'GET', url: '/api/v1/agents/main/sessions' });
    assert.equal(listed.json().total, 1);
  });

  it('keeps a message typed while the server is unreachable, and sends it later', async () => {
    await ui.page.route('**/api/v1/chat/completions', (route) => route.abort());
    await composer().fill('do not lose me');
    await composer().press('Enter');
    await ui.page.locator('.toast-error', { hasText: 'your message is kept' }).waitFor();
    assert.equal(await composer().inputValue(), 'do not lose me');
    // It survives a reload too, as a draft of this conversation.
    await ui.page.reload();
    await composer().waitFor();
    await pageUntil(
      ui.page,
      `document.querySelector('textarea[aria-label="Message"]')?.value === 'do not lose me'`,
    );
    await ui.page.unroute('**/api/v1/chat/completions');
    await ui.page.getByRole('button', { name: 'Send' }).click();
    await ui.page.locator('.message-user', { hasText: 'do not lose me' }).waitFor();
    await ui.page.locator('.markdown', { hasText: 'Plain answer.' }).last().waitFor();
    assert.equal(await composer().inputValue(), '');
  });

  it('works at 375 px: no sideways scrolling, conversations behind a button', async () => {
    await ui.page.setViewportSize(PHONE);
    await ui.page.reload();
    await composer().waitFor();
    assert.equal(await ui.page.locator('.chat-sidebar').isVisible(), true);
    const box = await ui.page.locator('.chat-sidebar').boundingBox();
    assert.ok(box && box.x + box.width <= 1, 'the conversation list is off screen');
    assert.ok(await ui.page.evaluate('document.documentElement.scrollWidth <= 375'));
    await ui.page.getByRole('button', { name: 'Conversations' }).click();
    await ui.page.waitForTimeout(200);
    const open = await ui.page.locator('.chat-sidebar').boundingBox();
    assert.ok(open && open.x >= 0, 'the conversation list slides in');
    await ui.page.getByRole('button', { name: 'Menu' }).waitFor();
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
