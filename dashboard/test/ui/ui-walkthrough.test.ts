import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, screenshot, startUiSession } from './harness.js';
import { type SeedCall, type SeedSession, signatureOf } from './seed.js';

// Fixes from a user walkthrough at a 1280 px window, with data shaped like the demo agent's.

const SERVICE = 'research-agent';
const LONG_TOOL = 'mcp__github__search_pull_requests_by_label';
const longArgs = { repo: 'acme/research-pipeline', label: 'needs-triage' };
const navArgs = { url: 'https://example.test/pricing/enterprise?tab=plans' };

const calls = (tool: string, args: Record<string, string>, actions: SeedCall['action'][]) =>
  actions.map((action): SeedCall => ({ tool, args, action, axis: 'repetition' }));

/** A halted run (halt decision), a blocked run, a warned run and a clean one, in one service. */
const RUNS: SeedSession[] = [
  {
    service: SERVICE,
    scope: 'research-run-halted',
    calls: calls('git_checkout', { branch: 'main' }, ['allow', 'warn', 'warn', 'halt']),
  },
  {
    service: SERVICE,
    scope: 'research-run-blocked',
    calls: calls(LONG_TOOL, longArgs, ['allow', 'allow', 'warn', 'warn', 'block']),
  },
  {
    service: SERVICE,
    scope: 'research-run-warned',
    calls: [
      ...calls(LONG_TOOL, longArgs, ['allow', 'warn']),
      ...calls('browser_navigate', navArgs, ['allow', 'allow', 'nudge', 'warn', 'warn']),
    ],
  },
  {
    service: SERVICE,
    scope: 'research-run-clean',
    calls: calls('job_status', { job_id: '4711' }, ['allow', 'allow']),
  },
];

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('dashboard UI walkthrough fixes in Chromium (1280 px)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-walk-'));
  const longSignature = signatureOf(LONG_TOOL, longArgs);
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const hash = () => new URL(page.url()).hash;
  const rows = () => page.locator('table.data-table tbody tr');
  const open = (route: string) => openRoute(page, dash, route);
  /** Widths that tell whether the page needs sideways scrolling. */
  const widths = async () => ({
    ...(await page.evaluate<{ page: number; window: number }>(
      '({ page: document.documentElement.scrollWidth, window: innerWidth })',
    )),
    table: await page.locator('table.data-table').evaluate((el) => el.scrollWidth),
    wrap: await page.locator('.table-wrap').evaluate((el) => el.clientWidth),
  });

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'walk.duckdb'),
      sessions: RUNS,
      agoMs: 10 * 60_000,
      viewport: { width: 1280, height: 800 },
      pageErrors,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('the hotspots table fits a 1280 px window; long text is cut with the full text in a title', async () => {
    await open('#/hotspots');
    await poll(() => rows().count()).toBe(4);
    const w = await widths();
    expect(w.table).toBeLessThanOrEqual(w.wrap);
    expect(w.page).toBeLessThanOrEqual(w.window);
    const lastSeen = await page.locator('th', { hasText: 'Last seen' }).boundingBox();
    expect((lastSeen?.x ?? Number.POSITIVE_INFINITY) + (lastSeen?.width ?? 0)).toBeLessThanOrEqual(
      1280,
    );
    // nothing lost: the cells still hold the whole text, and say it on hover
    const row = rows().filter({ hasText: longSignature });
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual([LONG_TOOL, longSignature, SERVICE]);
    expect(await row.locator('td').nth(0).locator('[title]').getAttribute('title')).toBe(LONG_TOOL);
    expect(await row.locator('.call-name').getAttribute('title')).toBe(longSignature);
    const firstSeen = row.locator('td').nth(12).locator('span');
    expect(await firstSeen.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await firstSeen.textContent())?.length).toBeLessThan(12);
    await screenshot(page, 'hotspots-1280');
  });

  it('the sessions list has a Halted column (the API field halted), sortable', async () => {
    await open('#/sessions');
    await poll(() => rows().count()).toBe(RUNS.length);
    const header = page.locator('th', { hasText: 'Halted' });
    expect(await header.getAttribute('aria-sort')).toBe('none');
    const column = await page.locator('thead th').allTextContents();
    const at = column.findIndex((t) => t.startsWith('Halted'));
    expect(at).toBeGreaterThan(0);
    const halted = async (scope: string) =>
      rows().filter({ hasText: scope }).locator('td').nth(at).textContent();
    expect(await halted('research-run-halted')).toBe('by halt');
    expect(await halted('research-run-blocked')).toBe('by block');
    expect(await halted('research-run-warned')).toBe('no');
    expect(await halted('research-run-clean')).toBe('no');
    await header.getByRole('button').click();
    await poll(() => header.getAttribute('aria-sort')).toBe('descending');
    const columnTexts = () =>
      rows().evaluateAll((trs, i) => trs.map((tr) => tr.children[i]?.textContent ?? ''), at);
    // halted runs first (true sorts above false, descending)
    await poll(async () => (await columnTexts()).map((t) => t.startsWith('by '))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const w = await widths();
    expect(w.table).toBeLessThanOrEqual(w.wrap);
    await screenshot(page, 'sessions-1280');
  });

  it('"← Sessions" on a timeline leads back to the signature list it came from, also after a reload', async () => {
    await open('#/hotspots');
    await rows().filter({ hasText: longSignature }).locator('td').first().click();
    const list = `#/sessions?signature=${encodeURIComponent(longSignature)}&service=${SERVICE}`;
    await poll(() => hash()).toBe(list);
    await poll(() => rows().count()).toBe(2);
    await page.getByRole('link', { name: 'research-run-blocked' }).click();
    await poll(() => hash()).toBe(
      `#/sessions/research-run-blocked?signature=${encodeURIComponent(longSignature)}&service=${SERVICE}`,
    );
    await page.getByTestId('run').first().waitFor();
    await page.reload();
    await page.getByTestId('run').first().waitFor();
    const back = page.getByRole('link', { name: '← Sessions' });
    expect(await page.locator('.crumbs').textContent()).toContain(longSignature);
    await back.click();
    await poll(() => hash()).toBe(list);
    await poll(() => rows().count()).toBe(2);
    await page.getByRole('link', { name: 'Remove signature filter' }).waitFor();

    // a session opened from the whole list (or a bare deep link) leads back to the whole list
    await open(`#/sessions/research-run-clean`);
    await page.getByTestId('run').first().waitFor();
    await page.getByRole('link', { name: '← Sessions' }).click();
    await poll(() => hash()).toBe('#/sessions');
    await poll(() => rows().count()).toBe(RUNS.length);
  });

  it('the time range is disabled on a timeline, with a note, and still carried back to the lists', async () => {
    await open('#/sessions?range=7d');
    await poll(() => rows().count()).toBe(RUNS.length);
    const range = page.getByRole('group', { name: 'Time range' });
    const sevenDays = range.getByRole('button', { name: '7d', exact: true });
    expect(await sevenDays.isEnabled()).toBe(true);
    expect(await page.getByTestId('range-note').count()).toBe(0);

    await page.getByRole('link', { name: 'research-run-warned' }).click();
    await page.getByTestId('run').first().waitFor();
    for (const name of ['15m', '1h', '24h', '7d', 'custom']) {
      expect(await range.getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
    }
    expect(await sevenDays.getAttribute('aria-pressed')).toBe('true');
    const note = page.getByTestId('range-note');
    expect(await note.textContent()).toBe('not applied: whole session');
    expect(await note.getAttribute('title')).toContain('always shows all of its calls');
    expect(await range.getAttribute('aria-describedby')).toBe('range-note');
    // the whole session, whatever the range
    expect(await page.getByTestId('session-calls').textContent()).toBe('7');
    await screenshot(page, 'session-timeline-range-note');

    await page.getByRole('link', { name: '← Sessions' }).click();
    await poll(() => hash()).toBe('#/sessions?range=7d');
    await poll(() => sevenDays.isEnabled()).toBe(true);
    expect(await page.getByTestId('range-note').count()).toBe(0);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
