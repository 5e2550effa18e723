import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, startUiSession } from './harness.js';
import { type SeedCall, type SeedSession, signatureOf } from './seed.js';

// Which page a list opens on when it is reached from a row, a tab or Back.

const SHARED: SeedCall = { tool: 'shared_probe', args: { k: 'v' }, action: 'allow' };
/** One signature in two services: 55 sessions in svc-a, 3 in svc-b. */
const RUNS: SeedSession[] = [
  ...Array.from({ length: 55 }, (_, i) => ({ service: 'svc-a', scope: `a-${i}`, calls: [SHARED] })),
  ...Array.from({ length: 3 }, (_, i) => ({ service: 'svc-b', scope: `b-${i}`, calls: [SHARED] })),
];

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('dashboard UI list pages in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-pages-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const hash = () => new URL(page.url()).hash;
  const rows = () => page.locator('table.data-table tbody tr');
  const open = (route: string) => openRoute(page, dash, route);

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'pages.duckdb'),
      sessions: RUNS,
      agoMs: 10 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it("a hotspot row opens its service's sessions on page 1, not the page another service's list was left on", async () => {
    const pager = page.getByRole('navigation', { name: 'session pages' });
    const hotspot = (service: string) => rows().filter({ hasText: service }).locator('td').first();
    await open('#/hotspots');
    await hotspot('svc-a').click();
    await poll(() => pager.textContent()).toMatch(/^1–50 of 55 sessions/);
    // the same signature in every service, on its second page
    await page.getByLabel('service', { exact: true }).selectOption('');
    await poll(() => pager.textContent()).toMatch(/^1–50 of 58 sessions/);
    await pager.getByRole('button', { name: 'Next ›' }).click();
    await poll(() => pager.textContent()).toMatch(/^51–58 of 58 sessions/);
    const allServicesPage2 = hash();

    await page
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('link', { name: 'Hotspots' })
      .click();
    await hotspot('svc-b').click();
    await poll(() => hash()).toContain('service=svc-b');
    await poll(() => pager.textContent()).toMatch(/^1–3 of 3 sessions/);
    expect(hash()).not.toContain('page=');
    expect(await rows().count()).toBe(3);

    // Back still leads to the list as it was left
    await page.goBack();
    await poll(() => hash()).toMatch(/^#\/hotspots/);
    await page.goBack();
    await poll(() => hash()).toBe(allServicesPage2);
    await poll(() => pager.textContent()).toMatch(/^51–58 of 58 sessions/);
    expect(pageErrors).toEqual([]);
  });

  it('a link to a page past the end of a list (it has shrunk since) opens its last page', async () => {
    const pager = page.getByRole('navigation', { name: 'session pages' });
    const signature = encodeURIComponent(signatureOf(SHARED.tool, SHARED.args));
    await open(`#/sessions?signature=${signature}&service=svc-a&page=9`);
    await poll(() => pager.textContent()).toMatch(/^51–55 of 55 sessions/);
    await poll(() => hash()).toBe(`#/sessions?signature=${signature}&service=svc-a&page=2`);
    await poll(() => rows().count()).toBe(5);

    await open(`#/sessions?signature=${signature}&service=svc-b&page=5`);
    await poll(() => pager.textContent()).toMatch(/^1–3 of 3 sessions/);
    await poll(() => hash()).toBe(`#/sessions?signature=${signature}&service=svc-b`);

    await open('#/hotspots?page=4');
    const hotspots = page.getByRole('navigation', { name: 'signature pages' });
    await poll(() => hotspots.textContent()).toMatch(/^1–2 of 2 signatures/);
    expect(pageErrors).toEqual([]);
  });

  it('a link sorting by a column the list cannot sort by opens the list in its default order', async () => {
    for (const [route, fixed] of [
      ['#/hotspots?sort=repeatTime', '#/hotspots'],
      ['#/sessions?sort=duration&order=asc', '#/sessions?order=asc'],
    ] as const) {
      await open(route);
      await poll(() => hash()).toBe(fixed);
      await rows().first().waitFor();
      expect(await page.locator('.error-notice').count()).toBe(0);
    }
    // and the tab link back to the sessions list no longer carries it either
    const tabs = page.getByRole('navigation', { name: 'Pages' });
    await tabs.getByRole('link', { name: 'Hotspots' }).click();
    await poll(() => hash()).toBe('#/hotspots');
    await tabs.getByRole('link', { name: 'Sessions' }).click();
    await poll(() => hash()).toBe('#/sessions?order=asc');
    await rows().first().waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('selecting text in a row (to copy it) does not open the row; a click does', async () => {
    await open('#/hotspots');
    const row = rows().filter({ hasText: 'svc-a' });
    const cell = row.locator('td').nth(2);
    const box = await cell.boundingBox();
    if (!box) throw new Error('no service cell');
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(300);
    expect(hash()).toBe('#/hotspots');
    expect(await page.evaluate('String(getSelection()).trim()')).toBe('svc-a');

    await cell.click();
    await poll(() => hash()).toContain('service=svc-a');
    expect(pageErrors).toEqual([]);
  });

  it('a list says it is loading while a slow server has not answered yet', async () => {
    const isList = (url: URL) =>
      url.pathname === '/api/hotspots' || url.pathname === '/api/sessions';
    await page.route(isList, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue().catch(() => undefined);
    });
    try {
      for (const [route, title] of [
        ['#/hotspots', 'Hotspots'],
        ['#/sessions', 'Sessions'],
      ] as const) {
        await open(route);
        await page.getByRole('heading', { name: title }).waitFor();
        await poll(() => page.locator('main').textContent()).toContain('Loading…');
        await rows().first().waitFor();
        expect(await page.locator('main').textContent()).not.toContain('Loading…');
      }
    } finally {
      await page.unroute(isList);
    }
    expect(pageErrors).toEqual([]);
  });
});
