import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type LoopTokens,
  runLoopingAgent,
  SCENARIOS,
  ScriptedAgentModel,
  type SessionSummary,
  type Summary,
  stepTokens,
} from '@loopguard/example-looping-agent';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/server/index.js';
import {
  buildUiIfStale,
  closeUiSession,
  collectPageErrors,
  fmtInt,
  launchChromium,
  openRoute,
  screenshot,
  UI_DIR,
} from './harness.js';

// A real dashboard (DuckDB file, OTLP/HTTP on 127.0.0.1) fed by the example agent itself: six
// sessions of runLoopingAgent, then the pages are read in Chromium. Every expected value comes
// from what the agent did: its scripted plans, its session summaries and the loop tokens its own
// tool spans carried as it exported them.

const SESSIONS = 6;
const SERVICE = 'looping-agent-ui';
/** USD per million tokens for every model of the example (each scenario has its own model id). */
const PRICE = { input: 2.5, cachedInput: 1.25, output: 10 };

/** What the dashboard should charge for `t` at PRICE (cached input at its own price). */
const usdOf = (t: LoopTokens) =>
  ((t.inputTokens - t.cachedInputTokens) * PRICE.input +
    t.cachedInputTokens * PRICE.cachedInput +
    t.outputTokens * PRICE.output) /
  1e6;

/** The dashboard's way of writing a spend, from the agent's figures: "12,345 tokens · $0.04". */
const spendText = (t: LoopTokens) =>
  `${fmtInt(t.inputTokens + t.outputTokens)} tokens · $${usdOf(t).toFixed(2)}`;

/** A flat call as a reader should see it: `grep(pattern: "TODO", path: "src")`. */
const readable = (tool: string, args: Record<string, unknown>) =>
  `${tool}(${Object.entries(args)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ')})`;

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 20_000, interval: 100 });

describe('dashboard UI fed by the example agent, in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-ui-agent-'));
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  let summary: Summary;
  const pageErrors: string[] = [];
  const session = (scenario: string): SessionSummary => {
    const found = summary.sessions.find((s) => s.scenario === scenario);
    if (!found) throw new Error(`no ${scenario} session`);
    return found;
  };

  beforeAll(async () => {
    buildUiIfStale();
    const prices = join(dir, 'prices.json');
    const models = SCENARIOS.map((s) => new ScriptedAgentModel(s.plan, 'price').modelId);
    writeFileSync(prices, JSON.stringify(Object.fromEntries(models.map((m) => [m, PRICE]))));
    dash = await startDashboard({ port: 0, db: join(dir, 'agent.duckdb'), uiDir: UI_DIR, prices });
    summary = await runLoopingAgent({
      sessions: SESSIONS,
      endpoint: dash.url,
      serviceName: SERVICE,
    });
    expect(summary.exportError).toBeUndefined();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    collectPageErrors(page, pageErrors);
  });

  afterAll(() => closeUiSession({ dash, browser }, dir));

  it('the agent ran its sessions and its flagged calls carried tokens', () => {
    expect(summary.sessionCount).toBe(SESSIONS);
    expect(summary.loopTokens.steps).toBeGreaterThan(0);
    expect(summary.loopTokens.inputTokens).toBeGreaterThan(0);
  });

  it('the overview shows what the agent spent in loops, priced', async () => {
    await openRoute(page, dash, '#/overview');
    await poll(() => page.getByTestId('spent-total').textContent()).toBe(
      spendText(summary.loopTokens),
    );
    const title = await page.getByTestId('spent-total').getAttribute('title');
    expect(title).toContain(`${fmtInt(summary.loopTokens.steps)} model steps`);
    expect(title).toContain(`(${fmtInt(summary.loopTokens.cachedInputTokens)} cached)`);
    await screenshot(page, 'agent-overview');
    expect(pageErrors).toEqual([]);
  });

  it("the grep loop's hotspot is named by tool and readable arguments, with its tokens", async () => {
    const grepLoop = session('grep-loop');
    const plan = SCENARIOS.find((s) => s.name === 'grep-loop')?.plan[0];
    if (!plan) throw new Error('no grep-loop plan');
    const name = readable(plan.tool, plan.args);
    await openRoute(page, dash, '#/hotspots');
    const row = page.locator('table.data-table tbody tr').filter({ hasText: name });
    await poll(() => row.count()).toBe(1);
    const text = (await row.textContent()) ?? '';
    // the hash second, after the arguments
    expect(text).toMatch(/\):[0-9a-f]{16}/);
    // every call of the session is this same grep: its loop tokens are the hotspot's
    await poll(async () => (await row.textContent()) ?? '').toContain(
      spendText(grepLoop.loopTokens),
    );
    expect(await page.getByTestId('capture-hint').count()).toBe(0);
    await screenshot(page, 'agent-hotspots');
    expect(pageErrors).toEqual([]);
  });

  it('a halted session shows its spend, its calls by arguments and the run tree', async () => {
    const halted = session('ping-pong');
    expect(halted.outcome).toBe('halted');
    const plan = SCENARIOS.find((s) => s.name === 'ping-pong')?.plan ?? [];
    await openRoute(page, dash, `#/sessions/${encodeURIComponent(halted.conversationId)}`);
    await poll(() => page.getByTestId('session-spent').textContent()).toBe(
      spendText(halted.loopTokens),
    );
    await poll(() => page.getByTestId('session-calls').textContent()).toBe(
      fmtInt(halted.toolCalls),
    );
    const timeline = (await page.getByTestId('run').allTextContents()).join('\n');
    for (const call of plan.slice(0, 2)) expect(timeline).toContain(readable(call.tool, call.args));

    const tree = page.getByTestId('run-tree');
    await tree.first().waitFor();
    const run = tree.getByTestId('tree-run');
    await poll(() => run.count()).toBe(1);
    expect(await run.locator('.tree-label').first().textContent()).toContain(
      'invoke_agent looping-agent',
    );
    // every call the agent made is a tool span under the run span (through the SDK's own spans)
    const tools = run.getByTestId('tree-tool');
    await poll(() => tools.count()).toBe(halted.toolCalls);
    const labels = await tools.allTextContents();
    // call k, made at model step k, by its arguments and with the tokens of that step
    labels.forEach((label, i) => {
      const call = plan[i];
      if (!call) throw new Error(`call ${i + 1} is not in the plan`);
      expect(label).toContain(readable(call.tool, call.args));
      const t = stepTokens(i + 1);
      expect(label).toContain(`${fmtInt(t.inputTokens + t.outputTokens)} tokens`);
    });
    // the run ended on its last call, the halt
    expect(await tools.last().locator('.badge').textContent()).toBe('halt');
    await screenshot(page, 'agent-session');
    expect(pageErrors).toEqual([]);
  });
});
