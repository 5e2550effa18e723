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
});
