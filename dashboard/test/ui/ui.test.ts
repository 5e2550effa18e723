import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/server/index.js';
import {
  closeUiSession,
  fmtInt,
  openRoute,
  SCREENSHOT_DIR,
  screenshot,
  startUiSession,
  UI_DIR,
} from './harness.js';
import {
  expectedTotals,
  pairsSession,
  SESSIONS,
  seed,
  signatureOf,
  XSS_SCOPE,
  XSS_VALUE,
} from './seed.js';

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe('dashboard UI in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-'));
  const expected = expectedTotals(SESSIONS);
  const grepSignature = signatureOf('grep', { pattern: 'TODO', path: 'src' });
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const hash = () => new URL(page.url()).hash;
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

  it('overview shows the seeded totals as cards and the decisions chart', async () => {
    await open('#/overview');
    const card = (key: string) => page.getByTestId(`summary-${key}`).textContent();
    await poll(() => card('calls')).toBe(fmtInt(expected.calls));
    expect(await card('sessions')).toBe(fmtInt(expected.sessions));
    expect(await card('nudges')).toBe(fmtInt(expected.nudges));
    expect(await card('warns')).toBe(fmtInt(expected.warns));
    expect(await card('blocks')).toBe(fmtInt(expected.blocks));
    expect(await card('halts')).toBe(fmtInt(expected.halts));
    expect(await card('haltedSessions')).toBe(fmtInt(expected.haltedSessions));
    expect(await card('spans')).toBe(fmtInt(expected.spans));
    const chart = page.getByTestId('decisions-chart');
    await chart.locator('canvas').first().waitFor();
    const legend = await chart.locator('.u-legend').textContent();
    for (const action of ['allow', 'nudge', 'warn', 'block', 'halt'])
      expect(legend).toContain(action);
    await page.getByLabel('hide allow').check();
    await poll(() => chart.locator('.u-legend').textContent()).not.toContain('allow');
    expect(await chart.locator('.u-legend').textContent()).toContain('halt');
    await page.getByLabel('hide allow').uncheck();
    await poll(() => chart.locator('.u-legend').textContent()).toContain('allow');
    expect(await page.locator('.top-list li').first().textContent()).toContain(grepSignature);
    await screenshot(page, 'overview');
  });

  it('hotspots table sorts, filters and opens the sessions of a signature', async () => {
    await page.getByRole('link', { name: 'Hotspots', exact: true }).click();
    const rows = page.locator('table.data-table tbody tr');
    await poll(() => rows.first().textContent()).toContain(grepSignature);
    const grepRow = rows.filter({ hasText: grepSignature });
    const cells = await grepRow.locator('td').allTextContents();
    // tool, signature, service, calls, longest streak, nudges, warns, blocks, halts, sessions;
    // findings, as the Overview counts them: the nudges beside a warn and a block count too
    expect(cells.slice(0, 10)).toEqual([
      'grep',
      grepSignature,
      'demo-agent',
      '9',
      '9',
      '3',
      '3',
      '2',
      '0',
      '1',
    ]);
    await screenshot(page, 'hotspots');

    const streakHeader = page.locator('th', { hasText: 'Longest streak' });
    await streakHeader.getByRole('button').click();
    await poll(() => streakHeader.getAttribute('aria-sort')).toBe('descending');
    await streakHeader.getByRole('button').click();
    await poll(() => streakHeader.getAttribute('aria-sort')).toBe('ascending');
    await poll(() => rows.first().locator('td').nth(4).textContent()).toBe('1');

    await page.getByLabel('tool', { exact: true }).selectOption('bash');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(signatureOf('bash', { cmd: 'npm test' }));
    await page.getByLabel('tool', { exact: true }).selectOption('');
    await poll(() => rows.count()).toBeGreaterThan(1);

    await rows.filter({ hasText: grepSignature }).locator('td').first().click();
    await poll(() => hash()).toBe(
      `#/sessions?signature=${encodeURIComponent(grepSignature)}&service=demo-agent`,
    );
    await poll(() => rows.count()).toBe(1);
    const sessionRow = rows.first();
    expect(await sessionRow.textContent()).toContain('run-grep-loop');
    expect(await sessionRow.locator('.badge').allTextContents()).toEqual([
      'halted',
      'blocked',
      'warned',
      'nudged',
    ]);
    await screenshot(page, 'sessions-by-signature');
  });

  it('session timeline draws the streak as one bar with its count and markers', async () => {
    await page.getByRole('link', { name: 'run-grep-loop' }).click();
    // the service filter the hotspot row set stays on, and the signature of the list it came from
    await poll(() => hash()).toBe(
      `#/sessions/run-grep-loop?signature=${encodeURIComponent(grepSignature)}&service=demo-agent`,
    );
    const runs = page.getByTestId('run');
    await poll(() => runs.count()).toBe(2);
    expect(await page.getByTestId('session-calls').textContent()).toBe('10');
    const loop = runs.nth(1);
    expect(await loop.getByTestId('streak-count').textContent()).toBe('×9');
    expect(await loop.locator('.run-index').textContent()).toBe('#2–10');
    expect(await loop.getByTestId('marker-nudge').count()).toBe(1);
    expect(await loop.getByTestId('marker-warn').count()).toBe(1);
    expect(await loop.getByTestId('marker-block').count()).toBe(1);
    expect(await runs.nth(0).getByTestId('streak-count').count()).toBe(0);

    await loop.getByTestId('streak-bar').click({ position: { x: 3, y: 6 } });
    const details = page.getByTestId('span-details');
    await details.waitFor();
    expect(await details.locator('h2').textContent()).toContain('Call #9');
    expect(await details.textContent()).toContain('loopguard.block');

    await loop.getByTestId('marker-nudge').click();
    await poll(() => details.locator('h2').textContent()).toContain('Call #4');
    const attrs = details.getByRole('table', { name: 'Span attributes' });
    expect(
      await attrs.locator('tr', { hasText: 'loopguard.streak' }).locator('td').textContent(),
    ).toBe('3');
    expect(
      await attrs.locator('tr', { hasText: 'loopguard.signature' }).locator('td').textContent(),
    ).toBe(grepSignature);
    expect(await details.locator('.event-name').allTextContents()).toEqual(['loopguard.nudge']);
    await details.getByRole('button', { name: 'Show spans of this trace' }).click();
    const grepRun = SESSIONS.find((x) => x.scope === 'run-grep-loop');
    await poll(() => details.locator('.trace-spans li').count()).toBe(
      (grepRun?.calls.length ?? 0) + 1,
    );
    expect(await details.locator('.trace-spans li').first().textContent()).toContain(
      'invoke_agent',
    );
    expect(await details.locator('.trace-spans li.current').textContent()).toContain(
      'execute_tool grep',
    );
    await screenshot(page, 'session-timeline');
  });

  it('renders an attribute value holding HTML as text, never as markup', async () => {
    await open('#/sessions');
    await page.getByRole('link', { name: XSS_SCOPE }).click();
    await poll(() => page.getByTestId('session-scope').textContent()).toBe(XSS_SCOPE);
    expect(await page.getByTestId('session-scope').locator('b').count()).toBe(0);
    await page.getByTestId('streak-bar').first().click();
    const details = page.getByTestId('span-details');
    await details.waitFor();
    for (let i = 0; i < 2; i++) await details.getByRole('button', { name: '‹ prev' }).click();
    const cell = details
      .getByRole('table', { name: 'Span attributes' })
      .locator('tr', { hasText: 'gen_ai.tool.call.arguments' })
      .locator('td');
    await poll(() => cell.textContent()).toBe(XSS_VALUE);
    expect(await cell.innerHTML()).not.toContain('<img');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await screenshot(page, 'span-details-xss');
  });

  it('sessions page badges, action filter and search', async () => {
    await open('#/sessions');
    const rows = page.locator('table.data-table tbody tr');
    await poll(() => rows.count()).toBe(SESSIONS.length);
    await screenshot(page, 'sessions');
    await page.getByLabel('action', { exact: true }).selectOption('halt');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('run-failing-tests');
    expect(await rows.first().locator('.badge').first().textContent()).toBe('halted');
    await page.getByLabel('action', { exact: true }).selectOption('');
    await poll(() => rows.count()).toBe(SESSIONS.length);
    await page.getByLabel('search', { exact: true }).fill('chat-4');
    await poll(() => rows.first().textContent()).toContain('chat-42');
    expect(await rows.count()).toBe(1);
    await page.getByRole('button', { name: 'clear filters' }).click();
    await poll(() => rows.count()).toBe(SESSIONS.length);
  });

  it('a filter change aborts the request in flight and shows only the newest answer', async () => {
    await open('#/sessions');
    const rows = page.locator('table.data-table tbody tr');
    await poll(() => rows.count()).toBe(SESSIONS.length);
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    const searchOf = (url: string) => new URL(url).searchParams.get('search');
    const sent: (string | null)[] = [];
    const aborted: (string | null)[] = [];
    await page.route(
      (url) => url.pathname === '/api/sessions',
      async (route) => {
        sent.push(searchOf(route.request().url()));
        if (searchOf(route.request().url()) === 'c') await new Promise((r) => setTimeout(r, 3000));
        await route.continue().catch(() => undefined);
      },
    );
    page.on('requestfailed', (req) => {
      if (new URL(req.url()).pathname === '/api/sessions') aborted.push(searchOf(req.url()));
    });
    try {
      const search = page.getByLabel('search', { exact: true });
      await search.fill('c');
      await poll(() => sent).toContain('c');
      await search.fill('chat-42');
      await poll(() => rows.first().textContent()).toContain('chat-42');
      expect(await rows.count()).toBe(1);
      await poll(() => aborted).toContain('c');
      await page.waitForTimeout(3500);
      expect(await rows.count()).toBe(1);
      expect(sent.filter((q) => q === 'chat-42')).toHaveLength(1);
    } finally {
      await page.unroute((url) => url.pathname === '/api/sessions');
    }
  });

  it('a custom range before the data shows the empty state with set-up instructions', async () => {
    await open('#/overview');
    await page.getByTestId('summary-calls').waitFor();
    await page.getByRole('button', { name: 'custom' }).click();
    await page.getByLabel('from', { exact: true }).fill('2020-01-01T00:00');
    await page.getByLabel('to', { exact: true }).fill('2020-01-02T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    const empty = page.getByRole('region', { name: 'No data' });
    await empty.waitFor();
    expect(await page.getByTestId('custom-range').textContent()).toBe(
      '2020-01-01 00:00:00 → 2020-01-02 00:00:00',
    );
    expect(await empty.textContent()).toContain('node --import @loopguard/otel/register app.mjs');
    expect(await empty.textContent()).toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${dash.url}`);
    // the hook must be installed in the agent's project first, or node cannot find it; the
    // @loopguard packages are not on npm, so they are packed from the repository
    expect(await empty.locator('pre').textContent()).toMatch(
      /^# in the loopguard repository \(its packages are not on npm\):\npnpm -C packages\/engine pack --pack-destination \/tmp\/loopguard-packs\npnpm -C packages\/otel pack --pack-destination \/tmp\/loopguard-packs\n# in the agent's project:\nnpm install \/tmp\/loopguard-packs\/\*\.tgz @opentelemetry\/api\nOTEL_SERVICE_NAME=my-agent OTEL_EXPORTER_OTLP_ENDPOINT=\S+ \\\nOTEL_METRICS_EXPORTER=none \\\n {2}node --import/,
    );
    await screenshot(page, 'empty-state');
    await page.getByRole('button', { name: '24h', exact: true }).click();
    await poll(() => page.getByTestId('summary-calls').textContent()).toBe(fmtInt(expected.calls));
  });

  it('live refresh picks up new spans, and pausing stops it', async () => {
    await open('#/overview');
    const sessions = page.getByTestId('summary-sessions');
    await poll(() => sessions.textContent()).toBe(fmtInt(expected.sessions));
    const extra = (scope: string) => [
      {
        service: 'demo-agent',
        scope,
        calls: [{ tool: 'ls', args: { dir: scope }, action: 'allow' as const }],
      },
    ];
    await seed(dash.url, extra('live-1'), Date.now() - 60_000);
    await poll(() => sessions.textContent()).toBe(fmtInt(expected.sessions + 1));
    const live = page.getByRole('button', { name: 'Live', exact: true });
    await live.click();
    await poll(() =>
      page.getByRole('button', { name: 'Paused' }).getAttribute('aria-pressed'),
    ).toBe('false');
    await seed(dash.url, extra('live-2'), Date.now() - 60_000);
    await page.waitForTimeout(7000);
    expect(await sessions.textContent()).toBe(fmtInt(expected.sessions + 1));
    await page.getByRole('button', { name: 'Refresh now' }).click();
    await poll(() => sessions.textContent()).toBe(fmtInt(expected.sessions + 2));
  });

  it('pages a session with thousands of calls and renders only the rows in view', async () => {
    await seed(dash.url, [pairsSession('run-huge', 2500)], Date.now() - 60 * 60_000, 200);
    await open('#/sessions/run-huge');
    const panel = page.getByRole('region', { name: 'Timeline' });
    await poll(() => panel.locator('.panel-head').textContent()).toContain(
      '1,000 runs of 2,000 calls',
    );
    expect(await page.getByTestId('session-calls').textContent()).toBe('2,500');
    const runs = page.getByTestId('run');
    const rendered = await runs.count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(60);
    expect(await runs.first().getByTestId('streak-count').textContent()).toBe('×2');
    await page.locator('.virtual').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await poll(() => runs.last().locator('.run-index').textContent()).toBe('#1999–2000');
    const pager = page.getByRole('navigation', { name: 'call pages' });
    expect(await pager.textContent()).toContain('1–2,000 of 2,500 calls');
    await pager.getByRole('button', { name: 'Next ›' }).click();
    await poll(() => runs.first().locator('.run-index').textContent()).toBe('#2001–2002');
    expect(await panel.locator('.panel-head').textContent()).toContain('250 runs of 500 calls');
    await screenshot(page, 'session-timeline-paged');
  });

  it('asks for the bearer token on 401 and keeps it in localStorage', async () => {
    const guarded = await startDashboard({
      port: 0,
      db: join(dir, 'guarded.duckdb'),
      uiDir: UI_DIR,
      token: 'ui-test-token',
    });
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${guarded.url}/#/overview`);
      const alert = p.getByRole('alert').filter({ hasText: '401 Unauthorized' });
      await alert.waitFor();
      await screenshot(p, 'token-required');
      await p.getByPlaceholder('paste token').fill('wrong-token');
      await p.getByRole('button', { name: 'Save' }).click();
      await poll(() => alert.textContent()).toContain('The stored token was rejected');
      await p.getByPlaceholder('paste token').fill('ui-test-token');
      await p.getByRole('button', { name: 'Save' }).click();
      const empty = p.getByRole('region', { name: 'No data' });
      await empty.waitFor();
      expect(await empty.textContent()).toContain('No tool calls in this time range yet');
      expect(await empty.textContent()).toContain('node --import @loopguard/otel/register app.mjs');
      expect(await p.evaluate("localStorage.getItem('loopguard.token')")).toBe('ui-test-token');
      await p.reload();
      await empty.waitFor();
      expect(await alert.count()).toBe(0);
      await screenshot(p, 'empty-state-fresh');
    } finally {
      await ctx.close();
      await guarded.close();
    }
  });

  it('keeps range and filters in the hash: a reload restores them, Back keeps the page', async () => {
    await open('#/hotspots');
    const rows = page.locator('table.data-table tbody tr');
    await poll(() => rows.count()).toBeGreaterThan(1);
    await page.getByRole('button', { name: '7d', exact: true }).click();
    await page.getByLabel('action', { exact: true }).selectOption('warn');
    await page.getByLabel('search', { exact: true }).fill('grep');
    await poll(() => hash()).toBe('#/hotspots?range=7d&action=warn&search=grep');
    await page.reload();
    const sevenDays = page.getByRole('button', { name: '7d', exact: true });
    await poll(() => sevenDays.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByLabel('action', { exact: true }).inputValue()).toBe('warn');
    expect(await page.getByLabel('search', { exact: true }).inputValue()).toBe('grep');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(grepSignature);

    // one signature in two services: a row opens the sessions of its own service only
    const shared = { tool: 'lookup', args: { id: '7' }, action: 'allow' as const };
    await seed(
      dash.url,
      [
        { service: 'svc-one', scope: 'shared-1', calls: [shared] },
        { service: 'svc-one', scope: 'shared-2', calls: [shared] },
        { service: 'svc-two', scope: 'shared-3', calls: [shared] },
      ],
      Date.now() - 60_000,
    );
    await open('#/hotspots?search=lookup');
    await poll(() => rows.count()).toBe(2);
    await rows.filter({ hasText: 'svc-two' }).locator('td').first().click();
    await poll(() => hash()).toContain('service=svc-two');
    await poll(() => rows.allTextContents()).toEqual([expect.stringContaining('shared-3')]);

    // page 2 of the sessions list, a session opened from it, Back: still page 2
    await seed(
      dash.url,
      Array.from({ length: 60 }, (_, i) => ({
        service: 'pager-bot',
        scope: `paged-${i}`,
        calls: [{ tool: 'ls', args: { n: String(i) }, action: 'allow' as const }],
      })),
      Date.now() - 30 * 60_000,
    );
    await open('#/sessions?service=pager-bot');
    const pager = page.getByRole('navigation', { name: 'session pages' });
    await poll(() => pager.textContent()).toContain('1–50 of 60 sessions');
    await pager.getByRole('button', { name: 'Next ›' }).click();
    await poll(() => pager.textContent()).toContain('51–60 of 60 sessions');
    await rows.first().getByRole('link').click();
    await poll(() => hash()).toMatch(/^#\/sessions\/paged-/);
    await page.goBack();
    await poll(() => hash()).toBe('#/sessions?service=pager-bot&page=2');
    await poll(() => pager.textContent()).toContain('51–60 of 60 sessions');
  });

  it('a link to a session that is not stored says so in words, not as raw JSON', async () => {
    // own context: the 404 is logged by Chromium as a failed resource, which is expected here
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${dash.url}/#/sessions/gone-run-7`);
      const alert = p.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toBe(
        'Could not load data: 404 Not Found: no session with scope "gone-run-7"',
      );
    } finally {
      await ctx.close();
    }
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
    expect(SCREENSHOT_DIR).toContain('screenshots');
  });
});
