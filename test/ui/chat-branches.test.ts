// The Chat page's conversation tools in a real browser: edit a sent message and resend it (a new
// branch), regenerate an answer with the versions kept and switchable, search across conversations
// (titles and messages), export as Markdown and JSON, pin and archive, and the per-conversation
// agent switch. The model is given the active branch only.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { agentDefinition } from '../fakes/builders.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Chat branches, search, export, pins and agent switch', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Plain answer.' });
  });
  uiSuite(
    {
      server: () => ({ config: { models: upstream.modelsConfig() } }),
      setUp: async (started) => {
        for (const id of ['plain', 'writer']) {
          const created = await started.app.inject({
            method: 'POST',
            url: '/api/v1/agents',
            payload: agentDefinition(id, { name: id === 'plain' ? 'Plain' : 'Writer', tools: [] }),
          });
          assert.equal(created.statusCode, 201, created.body);
        }
      },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(() => upstream?.close());

  const composer = () => ui.page.getByRole('textbox', { name: 'Message' });
  const userMessages = () => ui.page.locator('.message-user');
  const answers = () => ui.page.locator('.message-assistant');
  /** The user and assistant texts the model was given in its last request. */
  const lastSent = () =>
    ((upstream.requests.at(-1)?.['messages'] ?? []) as Array<{ role: string; content: unknown }>)
      .filter((message) => message.role !== 'system')
      .map((message) => message.content);
  const sessionKey = () => {
    const id = decodeURIComponent(new URL(ui.page.url()).pathname.split('/').at(-1) ?? '');
    return `agent:plain:channel:api:scope:per_peer:${id}`;
  };

  it('edits a sent message and resends it: a new branch, the original kept as a version', async () => {
    await ui.page.goto('/ui/chat/plain');
    await ui.page.waitForURL(/\/ui\/chat\/plain\/ui-[0-9a-f]+$/);
    upstream.script({ text: 'Four.' });
    await composer().fill('How many legs has a walrus?');
    await composer().press('Enter');
    await answers().filter({ hasText: 'Four.' }).waitFor();
    // The stored ids arrive after the answer: then the message can be edited.
    await userMessages().getByRole('button', { name: 'Edit message' }).click();
    const editor = ui.page.getByRole('textbox', { name: 'Edit message' });
    assert.equal(await editor.inputValue(), 'How many legs has a walrus?');
    await editor.fill('How many legs has a spider?');
    upstream.script({ text: 'Eight.' });
    await ui.page.getByRole('button', { name: 'Save and send' }).click();
    await answers().filter({ hasText: 'Eight.' }).waitFor();
    assert.deepEqual(lastSent(), ['How many legs has a spider?'], 'the model is given the new branch only');
    assert.equal(await answers().filter({ hasText: 'Four.' }).count(), 0);
    const versions = userMessages().locator('.versions');
    await versions.getByText('2 / 2').waitFor();
    // Back to the first version: its question and its answer.
    await versions.getByRole('button', { name: 'Previous version' }).click();
    await userMessages().filter({ hasText: 'How many legs has a walrus?' }).waitFor();
    await answers().filter({ hasText: 'Four.' }).waitFor();
    await versions.getByText('1 / 2').waitFor();
    await versions.getByRole('button', { name: 'Next version' }).click();
    await answers().filter({ hasText: 'Eight.' }).waitFor();
    assert.equal(await userMessages().count(), 1);
  });

  it('regenerates an answer: every version kept and switchable, and the reload shows the same', async () => {
    upstream.script({ text: 'Eight, again.' });
    await answers().getByRole('button', { name: 'Regenerate' }).click();
    await answers().filter({ hasText: 'Eight, again.' }).waitFor();
    assert.deepEqual(lastSent(), ['How many legs has a spider?'], 'the question is asked once, not repeated');
    const versions = answers().locator('.versions');
    await versions.getByText('2 / 2').waitFor();
    assert.equal(await userMessages().count(), 1, 'regenerate adds no message of the user');
    await versions.getByRole('button', { name: 'Previous version' }).click();
    await answers().filter({ hasText: 'Eight.' }).waitFor();
    await ui.page.reload();
    await answers().filter({ hasText: 'Eight.' }).waitFor();
    await answers().locator('.versions').getByText('1 / 2').waitFor();
    await userMessages().locator('.versions').getByText('2 / 2').waitFor();
    await screenshotAllModes(ui, 'chat-versions');
    // The next message continues the version shown.
    upstream.script({ text: 'Sixteen.' });
    await composer().fill('And doubled?');
    await composer().press('Enter');
    await answers().filter({ hasText: 'Sixteen.' }).waitFor();
    assert.deepEqual(lastSent(), ['How many legs has a spider?', 'Eight.', 'And doubled?']);
  });

  it('exports the conversation as Markdown and as JSON downloads', async () => {
    await ui.page.getByRole('button', { name: 'Export' }).click();
    const [markdown] = await Promise.all([
      ui.page.waitForEvent('download'),
      ui.page.getByRole('menuitem', { name: /Markdown/ }).click(),
    ]);
    assert.match(markdown.suggestedFilename(), /\.md$/);
    const text = await readFile((await markdown.path()) as string, 'utf8');
    assert.match(text, /## User\n\nHow many legs has a spider\?\n\n## Assistant\n\nEight\.\n/);
    assert.doesNotMatch(text, /Eight, again|How many legs has a walrus/, 'only the branch shown');
    await ui.page.getByRole('button', { name: 'Export' }).click();
    const [json] = await Promise.all([
      ui.page.waitForEvent('download'),
      ui.page.getByRole('menuitem', { name: /JSON/ }).click(),
    ]);
    assert.match(json.suggestedFilename(), /\.json$/);
    const body = JSON.parse(await readFile((await json.path()) as string, 'utf8'));
    assert.equal(body.session.key, sessionKey());
    assert.deepEqual(
      body.messages.map((message: { content: string }) => message.content),
      ['How many legs has a spider?', 'Eight.', 'And doubled?', 'Sixteen.'],
    );
  });

  it('searches titles and messages; a hit opens its conversation on the branch that holds it', async () => {
    const first = ui.page.url();
    // A second conversation, renamed, to be found by its title.
    await ui.page.getByRole('button', { name: 'New conversation' }).click();
    await ui.page.waitForURL((url) => url.href !== first);
    upstream.script({ text: 'Penguins live in the south.' });
    await composer().fill('Where do penguins live?');
    await composer().press('Enter');
    await answers().filter({ hasText: 'Penguins live' }).waitFor();
    const item = ui.page.locator('.session-item', { hasText: 'Where do penguins live?' });
    await item.getByRole('button', { name: /^Rename/ }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Rename conversation' });
    await dialog.getByRole('textbox').fill('Antarctic birds');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await ui.page.locator('.session-item', { hasText: 'Antarctic birds' }).waitFor();

    const search = ui.page.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('antarctic');
    const results = ui.page.locator('.search-results');
    await results.locator('.search-hit', { hasText: 'Antarctic birds' }).waitFor();
    // A message of the first conversation, on a version not shown now (the first question).
    await search.fill('walrus');
    const hit = results.locator('.search-hit', { hasText: 'How many legs has a walrus?' });
    await hit.waitFor();
    await hit.click();
    await ui.page.waitForURL(first);
    await ui.page
      .locator('.message-user.message-found', { hasText: 'How many legs has a walrus?' })
      .waitFor();
    await answers().filter({ hasText: 'Four.' }).waitFor();
    await search.fill('');
    await ui.page.locator('.session-item', { hasText: 'Antarctic birds' }).waitFor();
    await search.fill('zzzz-nothing');
    await ui.page.getByText('Nothing found for "zzzz-nothing".').waitFor();
    await search.fill('');
  });

  it('pins a conversation to the top and archives one out of the list, shown again on request', async () => {
    const titles = async () =>
      (await ui.page.locator('.session-list .session-item .session-title').allTextContents()).map((text) =>
        text.trim(),
      );
    await ui.page.locator('.session-item', { hasText: 'Antarctic birds' }).waitFor();
    assert.equal((await titles())[0], 'Antarctic birds', 'the newest first');
    // A conversation without a title is named by the first message of the version shown.
    await ui.page.getByRole('button', { name: 'Pin How many legs has a walrus?' }).click();
    await ui.page.locator('.session-item.pinned', { hasText: 'How many legs has a walrus?' }).waitFor();
    assert.equal((await titles())[0], 'How many legs has a walrus?', 'pinned first');
    await ui.page.getByRole('button', { name: 'Archive Antarctic birds' }).click();
    await ui.page.locator('.session-item', { hasText: 'Antarctic birds' }).waitFor({ state: 'detached' });
    await ui.page.getByLabel('Show archived').check();
    await ui.page.locator('.session-item.archived', { hasText: 'Antarctic birds' }).waitFor();
    await ui.page.getByRole('button', { name: 'Unarchive Antarctic birds' }).click();
    await ui.page.locator('.session-item:not(.archived)', { hasText: 'Antarctic birds' }).waitFor();
    await ui.page.getByLabel('Show archived').uncheck();
    const listed = await server.app.inject({ method: 'GET', url: '/api/v1/agents/plain/sessions' });
    const pinned = listed.json().data.find((session: { pinned: boolean }) => session.pinned);
    assert.equal(pinned.key, sessionKey());
  });

  it('switches the conversation to another agent, which answers with the whole history', async () => {
    const id = new URL(ui.page.url()).pathname.split('/').at(-1);
    await ui.page.getByRole('combobox', { name: 'Continue with' }).selectOption('writer');
    await ui.page.waitForURL(new RegExp(`/ui/chat/writer/${id}$`));
    await ui.page.locator('.toast', { hasText: 'The conversation continues with Writer' }).waitFor();
    // The search hit showed the first version: the conversation goes on from there.
    await answers().filter({ hasText: 'Four.' }).waitFor();
    upstream.script({ text: 'Written by the writer.' });
    await composer().fill('Now write it up');
    await composer().press('Enter');
    await answers().filter({ hasText: 'Written by the writer.' }).waitFor();
    assert.deepEqual(lastSent(), ['How many legs has a walrus?', 'Four.', 'Now write it up']);
    const moved = await server.app.inject({
      method: 'GET',
      url: `/api/v1/agents/writer/sessions/${id}`,
    });
    assert.equal(moved.statusCode, 200);
    assert.equal(moved.json().agentId, 'writer');
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(ui);
  });
});
