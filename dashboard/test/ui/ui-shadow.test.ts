import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, screenshot, startUiSession } from './harness.js';
import type { SeedCall, SeedSession } from './seed.js';

// A run decided in shadow mode beside the same run enforced: the timeline says what shadow mode
// would have done, never that it did it.

const SHADOW: Record<string, string> = { 'loopguard.shadow': 'true' };

function run(scope: string, shadow: boolean): SeedSession {
  const calls: SeedCall[] = [1, 2, 3, 4].map((n) => ({
    tool: 'deploy',
    args: { env: 'prod' },
    action: n === 1 ? 'allow' : n === 4 ? 'block' : 'warn',
    ...(n === 1 ? {} : { axis: 'exact_failure' }),
    events: n === 1 ? [] : n === 4 ? ['block'] : ['warn'],
    outcome: n === 4 && !shadow ? 'blocked' : 'error',
    extra: shadow ? SHADOW : {},
  }));
  return { service: 'canary', scope, calls };
}

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('shadow decisions in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-shadow-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'shadow.duckdb'),
      sessions: [run('shadow-run', true), run('live-run', false)],
      agoMs: 5 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('a shadow run reads "would have": header badges, markers and the call details', async () => {
    await openRoute(page, dash, '#/sessions/shadow-run');
    const badges = page.locator('.session-head .badge');
    await poll(() => badges.allTextContents()).toEqual([
      'shadow mode',
      'would have halted',
      'would have 1 blocked',
      'would have 2 warns',
    ]);
    const block = page.getByTestId('marker-block');
    await poll(() => block.count()).toBe(1);
    expect(await block.getAttribute('aria-label')).toBe('would have blocked at call 4');
    expect(await block.getAttribute('data-shadow')).toBe('true');
    expect(await page.getByTestId('marker-warn').getAttribute('aria-label')).toBe(
      'would have warned at call 2',
    );
    await block.click();
    const details = page.getByTestId('span-details');
    await details.waitFor();
    expect(await details.locator('h2 .badge').textContent()).toBe('would have blocked');
    expect(await details.getByTestId('shadow-mode').textContent()).toContain('not applied');
    expect(await details.locator('.outcome-error').textContent()).toBe('error');
    await screenshot(page, 'shadow-session');
    expect(pageErrors).toEqual([]);
  });

  it('an enforced run reads as before', async () => {
    await openRoute(page, dash, '#/sessions/live-run');
    const badges = page.locator('.session-head .badge');
    await poll(() => badges.allTextContents()).toEqual(['halted', '1 blocked', '2 warns']);
    const block = page.getByTestId('marker-block');
    await poll(() => block.count()).toBe(1);
    expect(await block.getAttribute('aria-label')).toBe('block at call 4');
    expect(await block.getAttribute('data-shadow')).toBeNull();
    await block.click();
    const details = page.getByTestId('span-details');
    await details.waitFor();
    expect(await details.locator('h2 .badge').textContent()).toBe('block');
    expect(await details.getByTestId('shadow-mode').count()).toBe(0);
    // each finding says why in words, beside the text the model read
    expect(await details.getByTestId('finding-why').textContent()).toMatch(
      /^block on exact_failure: 4 identical calls that failed, threshold 4$/,
    );
    expect(await details.locator('.finding-message').textContent()).toBe('deploy repeated 4 times');
    expect(pageErrors).toEqual([]);
  });

  /** The text of each cell of the row of a table whose text holds `key`, by column header. */
  async function rowByHeader(key: string): Promise<Record<string, string>> {
    const table = page.locator('table.data-table');
    const row = table.locator('tbody tr').filter({ hasText: key });
    await poll(() => row.count()).toBe(1);
    const headers = (await table.locator('thead th').allTextContents()).map((h) =>
      h.replace(/[▲▼]/g, '').trim(),
    );
    const cells = await row.locator('td').allTextContents();
    return Object.fromEntries(headers.map((h, i) => [h, cells[i] ?? '']));
  }

  it('the Sessions list shows a shadow run apart: no halted badge, what it would have been', async () => {
    await openRoute(page, dash, '#/sessions');
    const shadowRow = await rowByHeader('shadow-run');
    expect(shadowRow).toMatchObject({
      Status: 'would have halted',
      Halted: 'no (would have, by block)',
      Warns: '0',
      Blocks: '0',
      Shadow: 'would have blocked 1would have warned 2',
    });
    const liveRow = await rowByHeader('live-run');
    expect(liveRow).toMatchObject({
      Status: 'haltedblockedwarned',
      Halted: 'by block',
      Warns: '2',
      Blocks: '1',
      Shadow: '–',
    });
    const row = page.locator('table.data-table tbody tr').filter({ hasText: 'shadow-run' });
    expect(await row.getByTestId('shadow-badge').count()).toBe(1);
    expect(
      await row.getByTestId('shadow-counts').locator('.shadow-count').allTextContents(),
    ).toEqual(['would have blocked 1', 'would have warned 2']);
    await screenshot(page, 'shadow-sessions');
    expect(pageErrors).toEqual([]);
  });

  it('Hotspots count enforced findings and shadow ones apart', async () => {
    await openRoute(page, dash, '#/hotspots');
    const deploy = await rowByHeader('deploy');
    // both runs made the same call: enforced findings in the action columns, shadow ones apart
    expect(deploy).toMatchObject({
      Calls: '8',
      Warns: '2',
      Blocks: '1',
      Halts: '0',
      Shadow: 'would have blocked 1would have warned 2',
    });
    const overview = async () => {
      await openRoute(page, dash, '#/');
      const line = page.getByTestId('summary-shadow');
      await line.waitFor();
      return {
        blocks: await page.getByTestId('summary-blocks').textContent(),
        halted: await page.getByTestId('summary-haltedSessions').textContent(),
        shadow: await line.textContent(),
      };
    };
    expect(await overview()).toEqual({
      blocks: '1',
      halted: '1',
      shadow:
        'Shadow mode (recorded, not applied): would have blocked 1would have warned 2 · 1 session would have been halted',
    });
    await screenshot(page, 'shadow-hotspots');
    expect(pageErrors).toEqual([]);
  });
});
