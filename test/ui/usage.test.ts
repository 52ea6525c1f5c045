// The Usage page in a real browser: totals, the per-day chart, the top tables, the budgets and the
// CSV export, after real chat turns priced from the config.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/fake-upstream.ts';
import { localDay } from '../../src/usage/periods.ts';
import { assertNoConsoleErrors, screenshotAllModes, uiSuite, type UiPage } from './browser.ts';

describe('web UI: Usage', () => {
  let ui: UiPage;
  let upstream: FakeUpstream | undefined;

  uiSuite(
    {
      server: () => ({
        config: {
          models: {
            default_provider: 'fake',
            providers: {
              fake: { base_url: 'http://127.0.0.1:9/v1', model: 'm', pricing: { input: 1, output: 5 } },
            },
          },
          budgets: [{ id: 'main-daily', scope: { agent: 'main' }, cost: 10 }],
        },
      }),
      setUp: async (app) => {
        upstream = await startFakeUpstream({
          usage: () => ({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 }),
        });
        // Point the provider at the fake now that its port is known.
        await app.app.inject({
          method: 'PUT',
          url: '/api/v1/config/models/providers/fake',
          payload: { base_url: upstream.url },
        });
        for (let call = 0; call < 2; call += 1) {
          const answer = await app.app.inject({
            method: 'POST',
            url: '/api/v1/chat/completions',
            payload: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
          });
          assert.equal(answer.statusCode, 200, answer.body);
        }
      },
    },
    (suite) => ({ ui } = suite),
  );
  after(() => upstream?.close());

  it('shows totals, a bar for today, the top agents and the budget', async () => {
    await ui.page.goto('/ui/usage');
    const totals = ui.page.getByLabel('Totals');
    await totals.locator('[data-total="calls"]', { hasText: '2' }).waitFor();
    assert.equal(await totals.locator('[data-total="cost"]').textContent(), '$0.0040');
    assert.equal(await totals.locator('[data-total="tokens"]').textContent(), (2400).toLocaleString('en-US'));
    const bar = ui.page.locator(`rect[data-day="${localDay(Date.now())}"]`);
    assert.ok(Number(await bar.getAttribute('height')) > 90, 'today is the tallest bar');
    const agents = ui.page.getByRole('table', { name: 'Top agents' });
    await agents.getByRole('cell', { name: 'main' }).waitFor();
    await ui.page.getByRole('table', { name: 'Top channels' }).getByRole('cell', { name: 'api' }).waitFor();
    const budget = ui.page.locator('[data-budget="main-daily"]');
    await budget.getByText('$0.0040').waitFor();
    await screenshotAllModes(ui, 'usage');
    assertNoConsoleErrors(ui);
  });

  it('exports what it shows as CSV', async () => {
    await ui.page.setViewportSize({ width: 1280, height: 800 });
    const [download] = await Promise.all([
      ui.page.waitForEvent('download'),
      ui.page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const path = await download.path();
    const lines = (await readFile(path, 'utf8')).trim().split('\r\n');
    assert.match(download.suggestedFilename(), /^usage-\d{4}-\d\d-01-\d{4}-\d\d-\d\d\.csv$/);
    assert.equal(
      lines[0],
      'from,to,group,key,channel,calls,failedCalls,estimatedCalls,inputTokens,cachedInputTokens,outputTokens,reasoningTokens,totalTokens,cost',
    );
    const today = localDay(Date.now());
    assert.ok(
      lines.some((line) => line.includes(`,day,${today},,2,0,0,2000,0,400,0,2400,0.004`)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.includes(',agent,main,,2,')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.includes(',channel,api,,2,')),
      lines.join('\n'),
    );
    assertNoConsoleErrors(ui);
  });

  it('answers a range with no calls with zeros', async () => {
    await ui.page.getByLabel('From', { exact: true }).fill('2001-01-01');
    await ui.page.getByLabel('To', { exact: true }).fill('2001-01-31');
    await ui.page.getByLabel('Totals').locator('[data-total="calls"]', { hasText: /^0$/ }).waitFor();
    await ui.page.getByRole('heading', { name: 'Top agents' }).waitFor();
    assert.equal(await ui.page.locator('rect.usage-bar').count(), 31);
    assertNoConsoleErrors(ui);
  });
});
