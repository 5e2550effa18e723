import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type RunningDashboard, startDashboard } from '../../src/server/index.js';
import { type SeedSession, seed } from './seed.js';

/** dashboard/ */
export const DASHBOARD_DIR = fileURLToPath(new URL('../..', import.meta.url));
/** dashboard/dist/ui, the built UI the server serves. */
export const UI_DIR = join(DASHBOARD_DIR, 'dist', 'ui');
/** Where the test saves screenshots (gitignored). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('./screenshots', import.meta.url));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Runs `vite build` when dist/ui is missing or older than a file in src/ui or vite.config.ts. */
export function buildUiIfStale(): void {
  const index = join(UI_DIR, 'index.html');
  const sources = Math.max(
    newestMtime(join(DASHBOARD_DIR, 'src', 'ui')),
    statSync(join(DASHBOARD_DIR, 'vite.config.ts')).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync('pnpm', ['exec', 'vite', 'build', '--logLevel', 'warn'], {
    cwd: DASHBOARD_DIR,
    stdio: 'inherit',
  });
}

/** Launches the system Chromium headless (never downloads a browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/** Collects the page's uncaught errors and console errors into `errors` (a test expects none). */
export function collectPageErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
}

/** Saves a full-page screenshot as screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Formats an integer the way the UI does ("1,234"). */
export const fmtInt = (n: number) => new Intl.NumberFormat('en-US').format(n);

/** A dashboard with seeded data and one Chromium page on it. */
export interface UiSession {
  dash: RunningDashboard;
  browser: Browser;
  page: Page;
}

/**
 * Builds the UI if stale, starts a dashboard on `db`, seeds `sessions` from `agoMs` before now,
 * and opens a page of `viewport` size whose errors go to `pageErrors`.
 */
export async function startUiSession(options: {
  db: string;
  sessions: SeedSession[];
  agoMs: number;
  viewport: { width: number; height: number };
  pageErrors: string[];
  /** A price table file for the dashboard (`--prices`). */
  prices?: string;
}): Promise<UiSession> {
  buildUiIfStale();
  const dash = await startDashboard({
    port: 0,
    db: options.db,
    uiDir: UI_DIR,
    ...(options.prices ? { prices: options.prices } : {}),
  });
  let browser: Browser | undefined;
  try {
    await seed(dash.url, options.sessions, Date.now() - options.agoMs);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: options.viewport });
    const page = await context.newPage();
    collectPageErrors(page, options.pageErrors);
    return { dash, browser, page };
  } catch (error) {
    await closeUiSession({ dash, browser });
    throw error;
  }
}

/** Closes what `startUiSession` opened (each part if it was opened) and removes `dir` if given. */
export async function closeUiSession(ui: Partial<UiSession>, dir?: string): Promise<void> {
  await ui.browser?.close();
  await ui.dash?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}

/** Loads the UI afresh (filters and range back to their defaults) at a hash route. */
export async function openRoute(page: Page, dash: RunningDashboard, route: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${dash.url}/${route}`);
}
