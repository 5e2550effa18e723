import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, screenshot, startUiSession } from './harness.js';
import type { SeedSession } from './seed.js';

// Every attribute the UI shows, holding markup that would run script if rendered as HTML.

/** Markup that sets window.__xss to `where` if it is ever parsed as HTML. */
const evil = (where: string) => `<img src=x onerror="window.__xss='${where}'">`;

const SERVICE = evil('service');
const SCOPE = evil('scope');
const TOOL = evil('tool');
const SIGNATURE = `${evil('signature')}:0123456789abcdef`;
const ATTR_KEY = evil('attribute-key');

const RUNS: SeedSession[] = [
  {
    service: SERVICE,
    scope: SCOPE,
    calls: Array.from({ length: 4 }, (_, i) => ({
      tool: TOOL,
      args: { q: 'same' },
      action: i < 2 ? ('allow' as const) : ('warn' as const),
      axis: evil('axis'),
      events: i < 2 ? [] : ['warn' as const],
      outcome: i === 3 ? ('error' as const) : ('ok' as const),
      extra: {
        'loopguard.signature': SIGNATURE,
        'gen_ai.conversation.id': evil('conversation'),
        'gen_ai.tool.call.arguments': evil('arguments'),
        [ATTR_KEY]: evil('attribute-value'),
      },
    })),
  },
];

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('attribute values are text, never HTML, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-xss-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  const open = (route: string) => openRoute(page, dash, route);

  /** Nothing ran and no markup of the data became an element. */
  async function expectInert(): Promise<void> {
    await page.waitForTimeout(200);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('#app img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  }

  beforeAll(async () => {
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'xss.duckdb'),
      sessions: RUNS,
      agoMs: 5 * 60_000,
      viewport: { width: 1440, height: 900 },
      pageErrors,
    }));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('the overview, its filters and its top list show the markup as text', async () => {
    await open('#/overview');
    const top = page.locator('.top-list li').first();
    // a call is named by its tool, its captured arguments (as text), then the hash
    await poll(() => top.textContent()).toContain(`${TOOL}(${evil('arguments')}):0123456789abcdef`);
    expect(await top.textContent()).toContain(SERVICE);
    expect(await top.locator('.call-name').getAttribute('title')).toContain(SIGNATURE);
    const services = await page
      .getByLabel('service', { exact: true })
      .locator('option')
      .allTextContents();
    expect(services).toContain(SERVICE);
    const tools = await page
      .getByLabel('tool', { exact: true })
      .locator('option')
      .allTextContents();
    expect(tools).toContain(TOOL);
    await expectInert();
  });

  it('a filter holding markup in the link is shown as text', async () => {
    await open(
      `#/hotspots?service=${encodeURIComponent(SERVICE)}&search=${encodeURIComponent(TOOL)}`,
    );
    const row = page.locator('table.data-table tbody tr').first();
    await poll(() => row.textContent()).toContain(TOOL);
    expect(await page.getByLabel('search', { exact: true }).inputValue()).toBe(TOOL);
    expect(await page.getByLabel('service', { exact: true }).inputValue()).toBe(SERVICE);
    await expectInert();
  });

  it('hotspots, sessions of the signature and the session timeline show the markup as text', async () => {
    await open('#/hotspots');
    const row = page.locator('table.data-table tbody tr').first();
    await poll(() => row.textContent()).toContain(`${TOOL}(${evil('arguments')}):0123456789abcdef`);
    expect(await row.textContent()).toContain(SERVICE);
    await row.locator('td').first().click();
    await poll(() => page.locator('.chip').textContent()).toContain(SIGNATURE);
    const session = page.locator('table.data-table tbody tr').first();
    await poll(() => session.textContent()).toContain(SCOPE);
    await expectInert();

    await session.getByRole('link').click();
    await poll(() => page.getByTestId('session-scope').textContent()).toBe(SCOPE);
    const meta = (await page.locator('.session-meta').textContent()) ?? '';
    expect(meta).toContain(SERVICE);
    expect(meta).toContain(evil('conversation'));
    expect(await page.locator('.crumbs').textContent()).toContain(SIGNATURE);
    expect(await page.getByTestId('run').first().textContent()).toContain(TOOL);
    await expectInert();
  });

  it('span details, events and the trace show the markup as text', async () => {
    await page.getByTestId('marker-warn').first().click();
    const details = page.getByTestId('span-details');
    await details.waitFor();
    const text = (await details.textContent()) ?? '';
    for (const value of [TOOL, SIGNATURE, evil('axis'), ATTR_KEY, evil('attribute-value')]) {
      expect(text).toContain(value);
    }
    // the finding's message names the tool
    expect(await details.locator('.event').first().textContent()).toContain(`${TOOL} repeated`);
    await details.getByRole('button', { name: 'Show spans of this trace' }).click();
    const spans = details.locator('.trace-spans li');
    await poll(() => spans.count()).toBe(RUNS[0]?.calls.length ? RUNS[0].calls.length + 1 : 0);
    expect(await details.locator('.trace-spans').textContent()).toContain(`execute_tool ${TOOL}`);
    expect(await details.locator('.trace-spans').textContent()).toContain(SERVICE);
    await screenshot(page, 'xss-span-details');
    await expectInert();
    expect(pageErrors).toEqual([]);
  });
});
