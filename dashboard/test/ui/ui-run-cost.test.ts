import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopAction } from '../../src/api/types.js';
import type { RunningDashboard } from '../../src/server/index.js';
import { closeUiSession, openRoute, screenshot, startUiSession } from './harness.js';
import type { SeedCall, SeedSession } from './seed.js';

// A dashboard fed with spans carrying what the instrumentation now writes: captured arguments,
// the model step's usage and id, the call's sequence, and a run span with its outcome. The pages
// must show the arguments (readable, redacted), the run tree and the tokens spent in loops.

const ARGS = { pattern: 'TODO', path: 'src', api_key: 'sk-live-secret' };
const READABLE = 'grep(pattern: "TODO", path: "src", api_key: [REDACTED])';
const actions: LoopAction[] = ['allow', 'nudge', 'warn', 'block'];
const call = (action: LoopAction, i: number): SeedCall => ({
  tool: 'grep',
  args: ARGS,
  action,
  ...(action === 'allow' ? {} : { axis: 'streak', events: [action] }),
  ...(action === 'block' ? { outcome: 'blocked' as const } : {}),
  extra: {
    'gen_ai.tool.call.arguments': JSON.stringify(ARGS),
    'loopguard.sequence': String(i + 1),
    'loopguard.step.id': `step-${i + 1}`,
    'gen_ai.request.model': 'gpt-x',
    'gen_ai.usage.input_tokens': '1000',
    'gen_ai.usage.output_tokens': '50',
  },
});
const RUN: SeedSession = {
  service: 'cost-agent',
  scope: 'cost-run',
  run: {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'researcher',
    'loopguard.run.outcome': 'halted',
  },
  modelSteps: true,
  calls: actions.map(call),
};
// flagged steps 2-4: 3 x (1000 + 50) tokens; $ (3000 * 2 + 150 * 10) / 1e6 = $0.0075
const TOKENS = '3,150 tokens';

describe('dashboard UI: arguments, run tree and tokens in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-cost-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const prices = join(dir, 'prices.yaml');
    writeFileSync(prices, 'gpt-x: { input: 2, output: 10 }\n');
    ({ dash, browser, page } = await startUiSession({
      db: join(dir, 'cost.duckdb'),
      sessions: [RUN],
      agoMs: 5 * 60_000,
      viewport: { width: 1280, height: 900 },
      pageErrors,
      prices,
    }));
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('the overview shows the tokens spent in loops, priced, and names the call by its arguments', async () => {
    await openRoute(page, dash, '#/overview');
    const spent = page.getByTestId('spent-total');
    await expect.poll(() => spent.textContent()).toBe(`${TOKENS} · $0.01`);
    expect(await page.locator('.top-list li').first().textContent()).toContain(READABLE);
    await screenshot(page, 'cost-overview');
    expect(pageErrors).toEqual([]);
  });

  it('hotspots name the call by its redacted arguments, then the hash, with its tokens', async () => {
    await openRoute(page, dash, '#/hotspots');
    const row = page.locator('table.data-table tbody tr').first();
    await expect.poll(() => row.textContent()).toContain(READABLE);
    const text = (await row.textContent()) ?? '';
    expect(text).not.toContain('sk-live-secret');
    expect(text).toMatch(/\):[0-9a-f]{16}/);
    await expect.poll(async () => (await row.textContent()) ?? '').toContain(TOKENS);
    expect(await page.getByTestId('capture-hint').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('the session shows its tokens, its calls by arguments and the run tree', async () => {
    await openRoute(page, dash, `#/sessions/${RUN.scope}`);
    await expect
      .poll(() => page.getByTestId('session-spent').textContent())
      .toBe(`${TOKENS} · $0.01`);
    expect(await page.getByTestId('run').first().textContent()).toContain(READABLE);
    const tree = page.getByTestId('run-tree');
    await tree.waitFor();
    const run = tree.getByTestId('tree-run');
    await expect.poll(() => run.count()).toBe(1);
    expect(await run.locator('.tree-label').first().textContent()).toContain(
      'invoke_agent researcher',
    );
    expect(await run.getByTestId('run-outcome').first().textContent()).toBe('halted');
    // the run's children: a model step before each call, the calls in sequence order
    expect(await run.getByTestId('tree-tool').count()).toBe(4);
    expect(await run.getByTestId('tree-model').count()).toBe(4);
    const kinds = await run
      .locator(':scope > .tree > li')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-testid')));
    expect(kinds).toEqual(Array.from({ length: 4 }, () => ['tree-model', 'tree-tool']).flat());
    const model = (await run.getByTestId('tree-model').first().textContent()) ?? '';
    expect(model).toContain('chat gpt-x');
    expect(model).toContain('1,050 tokens');
    const tools = await run.getByTestId('tree-tool').allTextContents();
    expect(tools.map((t) => /nudge|warn|block/.exec(t)?.[0] ?? 'allow')).toEqual(actions);
    expect(tools[0]).toContain(READABLE);
    await screenshot(page, 'cost-session');
    expect(pageErrors).toEqual([]);
  });
});
