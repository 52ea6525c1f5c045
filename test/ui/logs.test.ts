// The Logs page in a real browser, on a real server (startServer): the recent lines, the level
// filter, and a new line appearing while Follow is on.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import {
  assertNoConsoleErrors,
  ensureUiBuilt,
  launchBrowser,
  openPage,
  screenshotAllModes,
  type UiPage,
} from './browser.ts';

describe('web UI: Logs', () => {
  let dir: string;
  let server: RunningServer;
  let browser: Browser;
  let ui: UiPage;

  before(async () => {
    await ensureUiBuilt();
    dir = await mkdtemp(join(tmpdir(), 'ui-logs-'));
    await writeFile(join(dir, 'config.yaml'), 'security:\n  requireAuth: false\n');
    server = await startServer({
      config: join(dir, 'config.yaml'),
      port: 0,
      cwd: dir,
      env: {},
      say: () => undefined,
      logLevel: 'info',
      logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
    });
    browser = await launchBrowser();
    ui = await openPage(browser, server.url, { allowErrors: [/status of 404/] });
  });
  after(async () => {
    await ui?.close();
    await browser?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the recent lines and, following, a new one as it is written', async () => {
    await fetch(`${server.url}/api/v1/agents/first-marker`);
    await ui.page.goto('/ui/logs');
    const log = ui.page.getByRole('log', { name: 'Server log' });
    await log.getByText('/api/v1/agents/first-marker').waitFor();
    await ui.page.getByText('Following: new lines appear').waitFor();
    await fetch(`${server.url}/api/v1/agents/second-marker`);
    await log.getByText('/api/v1/agents/second-marker').waitFor();
    await screenshotAllModes(ui, 'logs');
  });

  it('the level filter shows only lines at that level or above', async () => {
    await ui.page.getByLabel('Follow').uncheck();
    await ui.page.getByLabel('Level').selectOption('error');
    await ui.page.getByText('No log lines at this level yet.').waitFor();
    await ui.page.getByLabel('Level').selectOption('info');
    const log = ui.page.getByRole('log', { name: 'Server log' });
    await log.getByText('/api/v1/agents/second-marker').waitFor();
    assert.match((await ui.page.getByRole('status').textContent()) ?? '', /recent lines/);
    assertNoConsoleErrors(ui);
  });
});
