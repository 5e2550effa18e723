import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/server/index.js';
import {
  buildUiIfStale,
  closeUiSession,
  collectPageErrors,
  launchChromium,
  UI_DIR,
} from './harness.js';
import { SESSIONS, seed } from './seed.js';

// A dashboard started with LOOPGUARD_TOKEN, seen by a browser whose token changes.

const TOKEN = 'ui-token-test';
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('dashboard UI behind a token, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-token-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildUiIfStale();
    dash = await startDashboard({
      port: 0,
      db: join(dir, 'token.duckdb'),
      uiDir: UI_DIR,
      token: TOKEN,
    });
    await seed(dash.url, SESSIONS, Date.now() - 5 * 60_000, 1000, {
      authorization: `Bearer ${TOKEN}`,
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    collectPageErrors(page, pageErrors);
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('forgetting the token hides the data it fetched, not only asks for a new one', async () => {
    await page.goto(`${dash.url}/#/overview`);
    const alert = page.getByRole('alert').filter({ hasText: '401 Unauthorized' });
    await alert.waitFor();
    await page.getByPlaceholder('paste token').fill(TOKEN);
    await page.getByRole('button', { name: 'Save' }).click();
    const calls = page.getByTestId('summary-calls');
    await poll(() => calls.count()).toBe(1);

    await page.getByRole('button', { name: 'Token ✓' }).click();
    await page.getByRole('button', { name: 'Forget token' }).click();
    await alert.waitFor();
    await poll(() => page.locator('main .card').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain('Most repeated calls');

    // a server restarted with another token refuses the stored one on the next refresh
    await page.getByPlaceholder('paste token').fill(TOKEN);
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => calls.count()).toBe(1);
    const isApi = (url: URL) => url.pathname.startsWith('/api/');
    await page.route(isApi, (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: '{"error":"bad token"}',
      }),
    );
    await page.getByRole('button', { name: 'Refresh now' }).click();
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The stored token was rejected');
    await poll(() => page.locator('main .card').count()).toBe(0);
    await page.unroute(isApi);
    // the browser logs each 401 answer as a failed resource: expected here
    expect(pageErrors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
