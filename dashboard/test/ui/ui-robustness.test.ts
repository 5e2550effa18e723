import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, fmtInt, openRoute, startUiSession } from './harness.js';
import { expectedTotals, SESSIONS, seed } from './seed.js';

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('dashboard UI with a slow server, odd data and deep links', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-robust-'));
  const expected = expectedTotals(SESSIONS);
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const open = (route: string) => openRoute(page, dash, route);

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'ui.duckdb'),
      sessions: SESSIONS,
      agoMs: 5 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('refreshes slower than the server answers keep the request in flight instead of restarting it', async () => {
    await open('#/overview');
    const sessions = page.getByTestId('summary-sessions');
    await poll(() => sessions.textContent()).toBe(fmtInt(expected.sessions));
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    const isSummary = (url: URL) => url.pathname === '/api/summary';
    let sent = 0;
    let aborted = 0;
    page.on('requestfailed', (req) => {
      if (isSummary(new URL(req.url()))) aborted++;
    });
    await page.route(isSummary, async (route) => {
      sent++;
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue().catch(() => undefined);
    });
    try {
      await seed(
        dash.url,
        [
          {
            service: 'demo-agent',
            scope: 'slow-1',
            calls: [{ tool: 'ls', args: {}, action: 'allow' }],
          },
        ],
        Date.now() - 60_000,
      );
      let updatedWhileRefreshing = false;
      // a refresh every 400 ms against a server that takes a second: each used to abort the last
      for (let i = 0; i < 8; i++) {
        await page.getByRole('button', { name: 'Refresh now' }).click();
        await page.waitForTimeout(400);
        if ((await sessions.textContent()) === fmtInt(expected.sessions + 1)) {
          updatedWhileRefreshing = true;
        }
      }
      expect(updatedWhileRefreshing).toBe(true);
      expect(aborted).toBe(0);
      expect(sent).toBeLessThanOrEqual(4);
    } finally {
      await page.unroute(isSummary);
    }
    expect(pageErrors).toEqual([]);
  });

  it('an answer that is not JSON (a proxy page) is named as such, not as a SyntaxError', async () => {
    const isHotspots = (url: URL) => url.pathname === '/api/hotspots';
    await page.route(isHotspots, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<html>Sign in</html>' }),
    );
    try {
      await open('#/hotspots');
      const notice = page.locator('.error-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        'Could not load data: The server answered api/hotspots with text/html instead of JSON (a proxy or login page in between?)',
      );
    } finally {
      await page.unroute(isHotspots);
    }
    expect(pageErrors).toEqual([]);
  });

  it('long names without spaces wrap or clip inside the window on the overview and a timeline', async () => {
    const tool = `mcp__files__${'t'.repeat(150)}`;
    const service = `agent-${'s'.repeat(200)}`;
    const scope = `run-${'a'.repeat(300)}`;
    const calls = Array.from({ length: 12 }, () => ({
      tool,
      args: { q: 'x'.repeat(300) },
      action: 'allow' as const,
    }));
    await seed(dash.url, [{ service, scope, calls }], Date.now() - 2 * 60_000);
    const overflow = () => page.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth);
    await open('#/overview');
    const top = page.locator('.top-list li').first();
    await poll(() => top.textContent()).toContain(service);
    expect(await overflow()).toBe(0);

    await open('#/hotspots');
    await page.locator('tbody tr', { hasText: tool }).locator('td').first().click();
    await page.locator('a.scope-link').first().click();
    await poll(() => page.getByTestId('session-scope').textContent()).toBe(scope);
    expect(await page.locator('.session-meta').textContent()).toContain(service);
    expect(await overflow()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('the sort and page of a list survive a reload, and Back from a row it opened returns to them', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      service: 'many-agent',
      scope: `many-${i}`,
      calls: [{ tool: 'probe', args: { n: String(i) }, action: 'allow' as const }],
    }));
    await seed(dash.url, many, Date.now() - 3 * 60_000, 10);
    await open('#/hotspots');
    const rows = page.locator('table.data-table tbody tr');
    const pager = page.locator('nav.pager .muted');
    const streak = page.locator('th', { hasText: 'Longest streak' });
    await poll(() => rows.count()).toBe(50);
    await streak.getByRole('button').click();
    await streak.getByRole('button').click();
    await poll(() => streak.getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: 'Next ›' }).click();
    await poll(() => pager.textContent()).toMatch(/^51–/);
    const hash = new URL(page.url()).hash;

    await page.reload();
    await poll(() => pager.textContent()).toMatch(/^51–/);
    expect(await streak.getAttribute('aria-sort')).toBe('ascending');
    expect(new URL(page.url()).hash).toBe(hash);

    await rows.first().locator('td').first().click();
    await poll(() => new URL(page.url()).hash).toMatch(/^#\/sessions\?signature=/);
    await page.goBack();
    await poll(() => new URL(page.url()).hash).toBe(hash);
    await poll(() => pager.textContent()).toMatch(/^51–/);
    expect(await streak.getAttribute('aria-sort')).toBe('ascending');
    expect(pageErrors).toEqual([]);
  });

  it('a custom range that ends before it starts says so instead of ignoring Apply', async () => {
    await open('#/overview');
    await page.getByTestId('summary-calls').waitFor();
    await page.getByRole('button', { name: 'custom' }).click();
    await page.getByLabel('from', { exact: true }).fill('2020-01-02T00:00');
    await page.getByLabel('to', { exact: true }).fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    const problem = page.locator('.custom-range [role="alert"]');
    await poll(() => problem.allTextContents()).toEqual(['"to" must be after "from"']);
    expect(new URL(page.url()).hash).toBe('#/overview');
    await page.getByLabel('to', { exact: true }).fill('2020-01-03T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('custom-range').waitFor();
    expect(await problem.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a custom range the API would refuse is refused by the picker, and ignored in a link', async () => {
    await open('#/overview');
    await page.getByTestId('summary-calls').waitFor();
    await page.getByRole('button', { name: 'custom' }).click();
    await page.getByLabel('from', { exact: true }).fill('1960-01-01T00:00');
    await page.getByLabel('to', { exact: true }).fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    const problem = page.locator('.custom-range [role="alert"]');
    await poll(() => problem.allTextContents()).toEqual([
      '"from" must be after 1970-01-01 00:00 UTC',
    ]);
    expect(new URL(page.url()).hash).toBe('#/overview');

    // bounds the API refuses (a fraction, before 1970, past 15 digits): the default range instead
    for (const bounds of ['from=1.5&to=1000000', 'from=-5000&to=1000', 'from=0&to=1e17']) {
      await open(`#/hotspots?${bounds}`);
      await poll(() => new URL(page.url()).hash).toBe('#/hotspots');
      await page.locator('table.data-table tbody tr').first().waitFor();
      expect(await page.locator('.error-notice').count()).toBe(0);
      const day = page.getByRole('button', { name: '24h', exact: true });
      expect(await day.getAttribute('aria-pressed')).toBe('true');
    }
    expect(pageErrors).toEqual([]);
  });
});
