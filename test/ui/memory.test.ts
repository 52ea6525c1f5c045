// Memory in a real browser: the agent's Memory tab (files, search with the query's words marked)
// and a conversation compacted by "Compact now", its folded messages greyed under their summary.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: memory', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    upstream = await startFakeUpstream({ reply: 'Plain answer.' });
  });
  uiSuite(
    {
      server: () => ({
        config: {
          models: upstream.modelsConfig(),
          agents: { defaults: { compaction: { keep_recent_tokens: 10 } } },
        },
      }),
      setUp: async (started) => {
        const note = await started.app.inject({
          method: 'POST',
          url: '/api/v1/agents/main/workspace/files',
          payload: {
            path: 'memory/2026-11-20.md',
            content: '# Orders\n\n- 客户的订单号是 A-7731\n- Dana wants invoices by e-mail\n',
          },
        });
        assert.equal(note.statusCode, 201, note.body);
        for (const content of ['first question', 'second question', 'third question']) {
          const answer = await started.app.inject({
            method: 'POST',
            url: '/api/v1/chat/completions',
            payload: { model: 'main', sessionId: 'ui-seeded', messages: [{ role: 'user', content }] },
          });
          assert.equal(answer.statusCode, 200, answer.body);
        }
      },
    },
    (suite) => ({ server, ui } = suite),
  );
  after(() => upstream?.close());

  it('the Memory tab lists the files and marks the query in each hit', async () => {
    await ui.page.goto('/ui/agents/main/memory');
    await ui.page.locator('.memory-files code', { hasText: 'memory/2026-11-20.md' }).waitFor();
    await ui.page.getByRole('searchbox', { name: 'Search memory' }).fill('订单号');
    await ui.page.getByRole('button', { name: 'Search' }).click();
    const hit = ui.page.locator('.memory-hits li').first();
    await hit.waitFor();
    assert.equal(await ui.page.locator('.memory-hits li').count(), 1);
    assert.equal(await hit.locator('mark').textContent(), '订单号');
    assert.match((await hit.locator('code').textContent()) ?? '', /^memory\/2026-11-20\.md:3$/);
    await screenshotAllModes(ui, 'agents-memory');
    await ui.page.getByRole('searchbox', { name: 'Search memory' }).fill('Zebedee');
    await ui.page.getByRole('button', { name: 'Search' }).click();
    await ui.page.getByText('Nothing in memory matches “Zebedee”.').waitFor();
    assertNoConsoleErrors(ui);
  });

  it('"Compact now" folds the older turns: greyed, under their summary, all still shown', async () => {
    await ui.page.goto('/ui/chat/main/ui-seeded');
    await ui.page.locator('.message-user', { hasText: 'third question' }).waitFor();
    assert.equal(await ui.page.locator('.message-folded').count(), 0);
    await ui.page.getByRole('button', { name: 'Compact now' }).click();
    await ui.page.locator('.toast', { hasText: /Compacted: \d+ messages folded/ }).waitFor();
    await ui.page.locator('.compaction-summary', { hasText: 'Plain answer.' }).waitFor();
    assert.ok((await ui.page.locator('.message-folded').count()) >= 2);
    assert.equal(await ui.page.locator('.message-user').count(), 3, 'every message is still shown');
    await screenshotAllModes(ui, 'chat-compacted');
    const messages = await server.app.inject({ url: '/api/v1/agents/main/sessions/ui-seeded/messages' });
    assert.ok(
      messages.json<{ data: Array<{ role: string }> }>().data.some((view) => view.role === 'summary'),
    );
    assertNoConsoleErrors(ui);
  });
});
