import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../src/api/types.js';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, startUiSession } from './harness.js';
import { SESSIONS } from './seed.js';

// Answers the store gives once retention removed spans that a page still points at.

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });
const json = (body: unknown) => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(body),
});

describe('dashboard UI with nothing left to show, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-empty-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const open = (route: string) => openRoute(page, dash, route);

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'empty.duckdb'),
      sessions: SESSIONS,
      agoMs: 5 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('a trace without spans says so instead of an empty list', async () => {
    await page.route(
      (url) => url.pathname.startsWith('/api/traces/'),
      (route) => route.fulfill(json([])),
    );
    try {
      await open('#/sessions/run-grep-loop');
      await page.getByTestId('streak-bar').first().click();
      const details = page.getByTestId('span-details');
      await details.getByRole('button', { name: 'Show spans of this trace' }).click();
      const empty = details.getByTestId('trace-empty');
      await poll(() => empty.count()).toBe(1);
      expect(await empty.textContent()).toContain('No spans of this trace are stored');
      expect(await details.locator('section.trace').textContent()).not.toMatch(/NaN|Infinity/);
    } finally {
      await page.unroute((url) => url.pathname.startsWith('/api/traces/'));
    }
    expect(pageErrors).toEqual([]);
  });

  it('a session whose calls are gone says so, without a 1970 start or a NaN duration', async () => {
    const detail: SessionDetail = {
      session: {
        scope: 'run-pruned',
        service: 'demo-agent',
        calls: 0,
        longestStreak: 0,
        worstAction: 'allow',
        halted: false,
        nudges: 0,
        warns: 0,
        shadow: { nudges: 0, warns: 0, blocks: 0, halts: 0, worstAction: 'allow', halted: false },
        blocks: 0,
        start: 0,
        end: 0,
      },
      calls: [],
    };
    const isSession = (url: URL) => url.pathname === '/api/session';
    await page.route(isSession, (route) => route.fulfill(json(detail)));
    try {
      await open('#/sessions/run-pruned');
      const empty = page.getByTestId('timeline-empty');
      await poll(() => empty.count()).toBe(1);
      expect(await empty.textContent()).toContain('No calls of this session are stored');
      const main = (await page.locator('main').textContent()) ?? '';
      expect(main).not.toMatch(/1970|NaN|Infinity/);
      expect(await page.getByTestId('run').count()).toBe(0);
    } finally {
      await page.unroute(isSession);
    }
    expect(pageErrors).toEqual([]);
  });
});
