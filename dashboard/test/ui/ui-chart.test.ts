import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Series, SeriesPoint } from '../../src/api/types.js';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, screenshot, startUiSession } from './harness.js';
import { SESSIONS } from './seed.js';

// The decisions-over-time chart with series the store gives for short or sparse ranges.

const B = 900_000;
const NOW = Date.now() - (Date.now() % B);
const allow = (t: number, n: number): SeriesPoint => ({
  t,
  allow: n,
  nudge: 0,
  warn: 0,
  block: 0,
  halt: 0,
});

/**
 * The allow-coloured bars along the bottom row of the plot: left edge and width of each, in CSS
 * pixels from the plot's left edge.
 */
async function barsOnBaseline(page: Page): Promise<{ left: number; width: number }[]> {
  return page.getByTestId('decisions-chart').evaluate((host) => {
    const canvas = host.querySelector('canvas');
    const over = host.querySelector('.u-over');
    const ctx = canvas?.getContext('2d');
    if (!canvas || !over || !ctx) throw new Error('no chart');
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const c = canvas.getBoundingClientRect();
    const o = over.getBoundingClientRect();
    const x0 = Math.round((o.left - c.left) * scale);
    const x1 = Math.round((o.right - c.left) * scale);
    const y = Math.round((o.bottom - c.top - 3) * scale);
    const row = ctx.getImageData(x0, y, x1 - x0, 1).data;
    // --allow: #9aa0a6
    const isAllow = (i: number) =>
      Math.abs((row[i * 4] ?? 0) - 0x9a) < 12 &&
      Math.abs((row[i * 4 + 1] ?? 0) - 0xa0) < 12 &&
      Math.abs((row[i * 4 + 2] ?? 0) - 0xa6) < 12 &&
      (row[i * 4 + 3] ?? 0) > 200;
    const bars: { left: number; width: number }[] = [];
    let start = -1;
    for (let i = 0; i <= x1 - x0; i++) {
      const on = i < x1 - x0 && isAllow(i);
      if (on && start < 0) start = i;
      if (!on && start >= 0) {
        bars.push({ left: start / scale, width: (i - start) / scale });
        start = -1;
      }
    }
    return bars;
  });
}

describe('decisions chart in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-chart-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const isSeries = (url: URL) => url.pathname === '/api/series';

  async function showSeries(series: Series): Promise<void> {
    await page.unroute(isSeries);
    await page.route(isSeries, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(series) }),
    );
    await openRoute(page, dash, '#/overview');
    await page.getByTestId('decisions-chart').locator('canvas').waitFor();
    await page.waitForTimeout(300);
  }

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'chart.duckdb'),
      sessions: SESSIONS,
      agoMs: 5 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('draws a single point as one whole bar', async () => {
    await showSeries({ bucketMs: B, points: [allow(NOW, 5)] });
    await screenshot(page, 'chart-one-point');
    const bars = await barsOnBaseline(page);
    expect(bars).toHaveLength(1);
    // the widest bar the chart draws (48 px), not half of it cut off by the axis
    expect(bars[0]?.width).toBeGreaterThanOrEqual(46);
    expect(pageErrors).toEqual([]);
  });

  it('draws bars around a gap whole and equally wide, the first and last included', async () => {
    await showSeries({
      bucketMs: B,
      points: [allow(NOW - 40 * B, 3), allow(NOW - 39 * B, 2), allow(NOW, 7)],
    });
    await screenshot(page, 'chart-gap');
    const bars = await barsOnBaseline(page);
    expect(bars).toHaveLength(3);
    const widths = bars.map((b) => b.width);
    expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(2);
    // the gap is 37 empty buckets: the first two bars sit side by side, far from the third
    const [a, b, c] = bars;
    expect((b?.left ?? 0) - (a?.left ?? 0)).toBeLessThan(((c?.left ?? 0) - (b?.left ?? 0)) / 10);
    expect(pageErrors).toEqual([]);
  });

  it('says there is nothing to draw for a series without points', async () => {
    await page.unroute(isSeries);
    await page.route(isSeries, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ bucketMs: B, points: [] }),
      }),
    );
    await openRoute(page, dash, '#/overview');
    const chart = page.getByRole('region', { name: 'Decisions over time' });
    await chart.getByText('No decisions in this range.').waitFor();
    expect(await chart.locator('canvas').count()).toBe(0);
    await page.unroute(isSeries);
    expect(pageErrors).toEqual([]);
  });
});
