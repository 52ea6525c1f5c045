// Browser tests' kit: Debian's chromium driven by playwright-core, a real server per suite, pages
// that record console errors, and screenshots under test-results/screenshots/ (git-ignored).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestAppOptions } from '../fakes/app-harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 375, height: 740 } as const;

/** Builds web/dist once when it is missing (npm install builds it; a fresh checkout may not have). */
export async function ensureUiBuilt(): Promise<void> {
  if (existsSync(join(ROOT, 'web', 'dist', 'index.html'))) return;
  const result = spawnSync(process.execPath, ['scripts/build.mjs', 'ui'], { cwd: ROOT, stdio: 'inherit' });
  assert.equal(result.status, 0, 'the web UI build failed');
}

export async function launchBrowser(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM_PATH), `${CHROMIUM_PATH} is missing: run node scripts/ensure-chromium.mjs`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A server with the built UI, listening on 127.0.0.1 (a random port). */
export async function startUiServer(options: TestAppOptions = {}): Promise<TestApp> {
  await ensureUiBuilt();
  return createTestApp({ ...options, listen: true });
}

export interface UiPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

export interface PageOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** The browser's language (navigator.language), e.g. zh-CN; Chromium's own when absent. */
  locale?: string;
  /** Console error texts that a test provokes on purpose (a 401, a server that went away). */
  allowErrors?: RegExp[];
}

/** A fresh browser context (its own storage) on `baseUrl`, recording console errors. */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  options: PageOptions = {},
): Promise<UiPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    ...(options.locale ? { locale: options.locale } : {}),
  });
  // Fail in seconds, not playwright's 30 s default: every page here is local.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const allowed = (text: string) => (options.allowErrors ?? []).some((pattern) => pattern.test(text));
  page.on('console', (message) => {
    if (message.type() !== 'error' || allowed(message.text())) return;
    // A failed load names no resource in its text: its location does.
    const { url } = message.location();
    errors.push(
      url && message.text().startsWith('Failed to load') ? `${message.text()}: ${url}` : message.text(),
    );
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return { page, context, errors, close: () => context.close() };
}

export interface UiSuite {
  server: TestApp;
  browser: Browser;
  ui: UiPage;
}

export interface UiSuiteOptions {
  /** The server's options, or a function giving them when the suite starts (after earlier hooks). */
  server?: TestAppOptions | (() => TestAppOptions);
  page?: PageOptions;
  /** Runs once the server is up, before the browser starts (seed data through the API). */
  setUp?: (server: TestApp) => Promise<void>;
}

/**
 * Registers the describe block's before/after hooks: a UI server, a browser and one page on it,
 * handed to `use` once started and closed after the last test.
 */
export function uiSuite(options: UiSuiteOptions, use: (suite: UiSuite) => void): void {
  const suite: Partial<UiSuite> = {};
  before(async () => {
    const server = await startUiServer(
      typeof options.server === 'function' ? options.server() : options.server,
    );
    suite.server = server;
    await options.setUp?.(server);
    const browser = await launchBrowser();
    suite.browser = browser;
    suite.ui = await openPage(browser, server.url, options.page);
    use(suite as UiSuite);
  });
  after(async () => {
    await suite.ui?.close();
    await suite.browser?.close();
    await suite.server?.close();
  });
}

export function assertNoConsoleErrors(ui: UiPage): void {
  assert.deepEqual(ui.errors, [], 'the page logged no console errors');
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Screenshots of the current page in light and dark, at desktop size and 375 px wide. */
export async function screenshotAllModes(ui: UiPage, name: string): Promise<void> {
  const { page } = ui;
  const viewport = page.viewportSize() ?? DESKTOP;
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(50);
      await screenshot(page, `${name}-${label}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(viewport);
}

/**
 * Where `locator` is drawn once it stopped moving (a graph fitting itself into view after a load
 * moves its nodes): its box, the same over two animation frames. A drag started from a box read
 * mid-move lands beside the node.
 */
export async function steadyBox(
  locator: Locator,
): Promise<{ x: number; y: number; width: number; height: number }> {
  let last = await locator.boundingBox();
  for (let read = 0; read < 200; read += 1) {
    await locator
      .page()
      .evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    const box = await locator.boundingBox();
    if (box && last && box.x === last.x && box.y === last.y && box.width === last.width) return box;
    last = box;
  }
  throw new Error('the element kept moving');
}

/**
 * Waits until `expression` is true in the page, polling from here. Not page.waitForFunction with a
 * string: its first check passes, but polling one evaluates the string in the page, which the
 * page's CSP refuses (no 'unsafe-eval'), so a check that is not true at once fails the test.
 */
export async function pageUntil(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await page.evaluate(expression)) !== true) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
