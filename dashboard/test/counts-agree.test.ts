import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hotspot, Page, SessionRow, Summary } from '../src/api/types.js';
import { createApp } from '../src/server/app.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';

// The disagreement: a span's loopguard.action is its strongest action, its events one per
// finding. Overview counted the first, /metrics the second; halts were halt actions while the
// list's badge is "a block or halt". The same spans must give the same numbers everywhere.
const T = Date.UTC(2026, 0, 5, 10, 0, 0);
const SHADOW = { 'loopguard.shadow': 'true' };
const spans = () => [
  makeToolSpan({ scope: 'r1', timeMs: T, streak: 3, action: 'nudge', axis: 'streak', level: 1 }),
  // a nudge beside a warn: the call's action is warn, both findings count
  makeToolSpan({
    scope: 'r1',
    timeMs: T + 1,
    action: 'warn',
    axis: 'repetition',
    findings: [
      { action: 'nudge', axis: 'streak' },
      { action: 'warn', axis: 'repetition' },
    ],
  }),
  // a repetition block that records the halt decision
  makeToolSpan({
    scope: 'r1',
    timeMs: T + 2,
    action: 'block',
    axis: 'repetition',
    findings: [
      { action: 'block', axis: 'repetition' },
      { action: 'halt', axis: 'repetition' },
    ],
  }),
  makeToolSpan({ scope: 'r2', timeMs: T + 3, action: 'halt', axis: 'cycle' }),
  makeToolSpan({ scope: 'r3', timeMs: T + 4, action: 'warn', axis: 'exact_failure' }),
  // old data: an action without events counts as one finding
  makeToolSpan({ scope: 'r3', timeMs: T + 5, action: 'nudge', axis: 'streak', findings: [] }),
  makeToolSpan({ scope: 'r4', timeMs: T + 6 }),
  // a shadow run: decided and recorded, nothing applied; counted apart, never halted
  makeToolSpan({
    scope: 's1',
    timeMs: T + 7,
    action: 'warn',
    axis: 'repetition',
    findings: [
      { action: 'nudge', axis: 'streak' },
      { action: 'warn', axis: 'repetition' },
    ],
    attributes: SHADOW,
  }),
  makeToolSpan({
    scope: 's1',
    timeMs: T + 8,
    action: 'block',
    axis: 'repetition',
    findings: [
      { action: 'block', axis: 'repetition' },
      { action: 'halt', axis: 'repetition' },
    ],
    attributes: SHADOW,
  }),
];

/** Sums of one family of the exposition, by a label; `shadow` keeps only shadow series (or none). */
function metricSums(
  text: string,
  family: string,
  label: string,
  shadow = false,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${family}{`)) continue;
    if (line.includes('shadow="true"') !== shadow) continue;
    const m = new RegExp(`${label}="([^"]*)"`).exec(line);
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (m?.[1] !== undefined) out[m[1]] = (out[m[1]] ?? 0) + value;
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'loopguard-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const backends: [string, () => Promise<Store>][] = [
  ['duckdb', () => openDuckDbStore({ path: join(dir, `counts-${Math.random()}.duckdb`) })],
  ['clickhouse (chdb)', () => createClickHouseStore({ executor: createChdbExecutor() })],
];

// a minute (raw spans) and ten hours (the hourly / minute rollups plus partial edges)
const ranges = [
  [T - 60_000, T + 60_000],
  [T - 5 * 3_600_000 + 7, T + 5 * 3_600_000],
] as const;

describe.each(backends)('counts agree: %s', (_name, open) => {
  it.each(ranges)(
    'summary, /metrics, hotspots and session badges count the same findings (%i-%i)',
    async (from, to) => {
      const store = await open();
      try {
        const app = createApp({ store });
        await store.insert(spans());
        const range = `from=${from}&to=${to}`;
        const summaryRes = await app.request(`/api/summary?${range}`);
        const text = await summaryRes.text();
        // integers are JSON numbers
        expect(text).toMatch(/"nudges":\d+/);
        const summary = JSON.parse(text) as Summary;
        const list = (await (
          await app.request(`/api/sessions?${range}&limit=500`)
        ).json()) as Page<SessionRow>;
        const metrics = await (await app.request('/metrics')).text();
        const decisions = metricSums(metrics, 'loopguard_decisions_total', 'action');
        const shadowDecisions = metricSums(metrics, 'loopguard_decisions_total', 'action', true);
        const hotspots = (await (
          await app.request(`/api/hotspots?${range}&limit=500`)
        ).json()) as Page<Hotspot>;
        const halted = metricSums(metrics, 'loopguard_halted_sessions_total', 'service');

        expect(summary).toMatchObject({ nudges: 3, warns: 2, blocks: 1, halts: 2 });
        expect(decisions).toEqual({
          nudge: summary.nudges,
          warn: summary.warns,
          block: summary.blocks,
          halt: summary.halts,
        });
        expect(summary.shadow).toEqual({
          nudges: 1,
          warns: 1,
          blocks: 1,
          halts: 1,
          haltedSessions: 1,
        });
        expect(shadowDecisions).toEqual({
          nudge: summary.shadow.nudges,
          warn: summary.shadow.warns,
          block: summary.shadow.blocks,
          halt: summary.shadow.halts,
        });
        const sum = (k: 'nudges' | 'warns' | 'blocks') => list.rows.reduce((n, r) => n + r[k], 0);
        expect([sum('nudges'), sum('warns'), sum('blocks')]).toEqual([
          summary.nudges,
          summary.warns,
          summary.blocks,
        ]);
        const shadowSum = (k: 'nudges' | 'warns' | 'blocks') =>
          list.rows.reduce((n, r) => n + r.shadow[k], 0);
        expect([shadowSum('nudges'), shadowSum('warns'), shadowSum('blocks')]).toEqual([
          summary.shadow.nudges,
          summary.shadow.warns,
          summary.shadow.blocks,
        ]);
        // hotspots count per finding too, shadow ones apart
        const kinds = ['nudges', 'warns', 'blocks', 'halts'] as const;
        expect(kinds.map((k) => hotspots.rows.reduce((n, r) => n + r[k], 0))).toEqual(
          kinds.map((k) => summary[k]),
        );
        expect(kinds.map((k) => hotspots.rows.reduce((n, r) => n + r.shadow[k], 0))).toEqual(
          kinds.map((k) => summary.shadow[k]),
        );
        const haltedRows = list.rows.filter((r) => r.halted).map((r) => r.scope);
        expect(haltedRows.sort()).toEqual(['r1', 'r2']);
        expect(summary.haltedSessions).toBe(haltedRows.length);
        const wouldHave = list.rows.filter((r) => r.shadow.halted).map((r) => r.scope);
        expect(wouldHave).toEqual(['s1']);
        expect(summary.shadow.haltedSessions).toBe(wouldHave.length);
        expect(Object.values(halted).reduce((a, b) => a + b, 0)).toBe(summary.haltedSessions);
        for (const r of list.rows) expect(typeof r.calls).toBe('number');
      } finally {
        await store.close();
      }
    },
  );
});
