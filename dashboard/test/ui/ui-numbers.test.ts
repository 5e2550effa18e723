import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hotspot, Page as ListPage, Summary } from '../../src/api/types.js';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, fmtInt, openRoute, screenshot, startUiSession } from './harness.js';
import { SESSIONS, type SeedSession } from './seed.js';

// Totals of a busy fleet over a long range, as the API gives them.

const SUMMARY: Summary = {
  spans: Number.MAX_SAFE_INTEGER,
  calls: 123_456_789_012,
  nudges: 98_765_432_109,
  warns: 1e12,
  blocks: 5e11,
  halts: 4e10,
  sessions: 7_654_321_098,
  haltedSessions: 3_210_987_654,
  loopShare: 0.99999,
  shadow: { nudges: 0, warns: 0, blocks: 0, halts: 0, haltedSessions: 0 },
};

const HOTSPOT: Hotspot = {
  service: 'fleet',
  tool: 'grep',
  signature: 'grep:0123456789abcdef',
  calls: 123_456_789_012,
  longestStreak: 98_765_432,
  nudges: 1e10,
  warns: 1e10,
  blocks: 1e10,
  halts: 1e10,
  shadow: { nudges: 0, warns: 0, blocks: 0, halts: 0 },
  sessions: 1_234_567_890,
  repeatSeconds: 1e10,
  firstSeen: Date.now() - 86_400_000,
  lastSeen: Date.now(),
};

/** A session of a single call. */
const SOLO: SeedSession = {
  service: 'solo-agent',
  scope: 'solo-run',
  calls: [{ tool: 'ls', args: {}, action: 'allow' }],
};

const json = (body: unknown) => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

describe('dashboard UI with huge numbers in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-numbers-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'numbers.duckdb'),
      sessions: [...SESSIONS, SOLO],
      agoMs: 5 * 60_000,
      viewport: { width: 1280, height: 800 },
      pageErrors,
    }));
    await page.route(
      (url) => url.pathname === '/api/summary',
      (route) => route.fulfill(json(SUMMARY)),
    );
    const hotspots: ListPage<Hotspot> = { rows: [HOTSPOT], total: 1 };
    await page.route(
      (url) => url.pathname === '/api/hotspots',
      (route) => route.fulfill(json(hotspots)),
    );
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('summary cards show every count whole inside its card, the exact number in the title', async () => {
    await openRoute(page, dash, '#/overview');
    await page.getByTestId('summary-calls').waitFor();
    await screenshot(page, 'huge-numbers-overview');
    const cards = page.locator('.card');
    expect(await cards.count()).toBe(9);
    for (const card of await cards.all()) {
      const overflow = await card.evaluate((el) => {
        const dd = el.querySelector('dd');
        return (dd?.scrollWidth ?? Number.POSITIVE_INFINITY) - el.clientWidth;
      });
      expect(overflow, (await card.textContent()) ?? '').toBeLessThanOrEqual(0);
    }
    expect(await page.getByTestId('summary-calls').textContent()).toBe('123.5B');
    const callsCard = page.locator('.card', { has: page.getByTestId('summary-calls') });
    expect(await callsCard.getAttribute('title')).toContain(fmtInt(SUMMARY.calls));
    // 1 call in 100,000 did not loop: not "100.0%"
    expect(await page.getByTestId('summary-loopShare').textContent()).toBe('>99.9%');
    expect(pageErrors).toEqual([]);
  });

  it('the most repeated calls keep each number on one line', async () => {
    const cells = page.locator('.top-list li .num');
    await cells.first().waitFor();
    for (const cell of await cells.all()) {
      const lines = await cell.evaluate((el) => {
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
      expect(lines, (await cell.textContent()) ?? '').toBe(1);
    }
    expect(pageErrors).toEqual([]);
  });

  it('a session of one call reads "1 call"', async () => {
    await openRoute(page, dash, `#/sessions/${SOLO.scope}`);
    await page.getByTestId('session-calls').waitFor();
    const meta = (await page.locator('.session-meta').textContent()) ?? '';
    expect(meta).toContain('1 call');
    expect(meta).not.toContain('1 calls');
    expect(pageErrors).toEqual([]);
  });

  it('a repeat time of years reads in days with thousands separators', async () => {
    await openRoute(page, dash, '#/hotspots');
    const row = page.locator('table.data-table tbody tr').first();
    await row.waitFor();
    expect(await row.textContent()).toContain('115,740 d 18 h');
    expect(pageErrors).toEqual([]);
  });
});
