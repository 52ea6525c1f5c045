// The Monitor page in a real browser: a running turn appears live (agent, channel, who asked), moves
// to the finished turns with its outcome when it ends, and opens its trace (model calls) on a click.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../fakes/app-harness.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Monitor', () => {
  let upstream: FakeUpstream;
  let server: TestApp;
  let ui: UiPage;

  before(async () => {
    // Slow enough that the turn is seen running.
    upstream = await startFakeUpstream({ reply: 'Monitored answer.', latencyMs: 2500 });
  });
  after(() => upstream.close());
  uiSuite(
    { server: () => ({ config: { models: upstream.modelsConfig() } }) },
    (suite) => ({ server, ui } = suite),
  );

  it('shows a running turn live, then finished with its outcome, and its trace on a click', async () => {
    await ui.page.goto('/ui/monitor');
    await ui.page.getByLabel('Live updates').getByText('live').waitFor();
    await ui.page.getByText('No turn is running.').waitFor();
    const answer = fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'watch me' }] }),
    });
    const running = ui.page.getByRole('table', { name: 'Running turns' });
    const row = running.locator('tr[data-turn]').first();
    await row.waitFor();
    assert.match(await row.innerText(), /main\s+api/);
    assert.match(await row.innerText(), /thinking/);
    await screenshotAllModes(ui, 'monitor-running');
    assert.equal((await answer).status, 200);
    const finished = ui.page.getByRole('table', { name: 'Finished turns' });
    const done = finished.locator('tr[data-turn]').first();
    await done.waitFor();
    assert.match(await done.innerText(), /ok/);
    await ui.page.getByText('No turn is running.').waitFor();
    const chains = ui.page.getByRole('table', { name: 'Chain runs' });
    await chains.getByText('main').first().waitFor();
    await done.getByRole('button').click();
    const dialog = ui.page.getByRole('dialog', { name: 'Turn trace' });
    const steps = dialog.getByLabel('Trace steps');
    await steps.locator('[data-step="model"]').first().waitFor();
    assert.match(await steps.locator('[data-step="model"]').first().innerText(), /model call fake/);
    assert.ok((await steps.locator('[data-step="node"]').count()) >= 1);
    assertNoConsoleErrors(ui);
  });
});
