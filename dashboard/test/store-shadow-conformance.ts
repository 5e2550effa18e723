import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';
import { ALL, MIN, T0 } from './store-seed.js';

const SHADOW = { 'loopguard.shadow': 'true' };

/** An enforced run (blocked at its 3rd call) and a shadow run deciding the same, in two scopes. */
export function shadowRuns(startMs = T0) {
  const run = (scope: string, shadow: boolean) =>
    [1, 2, 3].map((n) =>
      makeToolSpan({
        scope,
        tool: 'deploy',
        args: 'prod',
        streak: n,
        count: n,
        timeMs: startMs + n * 1000,
        action: n === 1 ? 'allow' : n === 2 ? 'warn' : 'block',
        axis: n === 1 ? undefined : 'exact_failure',
        // a shadow block ran: its outcome is the tool's own
        outcome: n === 3 && !shadow ? 'blocked' : 'error',
        attributes: shadow ? SHADOW : {},
      }),
    );
  return [...run('enforced', false), ...run('shadowed', true)];
}

/** Shadow-mode decisions (`loopguard.shadow`): kept apart in counters, flagged on timeline calls. */
export function describeShadowConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store shadow conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('counts shadow calls and findings apart and never as halted sessions', async () => {
      await store.insert(shadowRuns());
      const c = await store.counters();
      const sorted = <T extends { action: string }>(rows: T[]) =>
        [...rows].sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
      const calls = (shadow: boolean) =>
        sorted(c.toolCalls.filter((x) => (x.shadow === true) === shadow)).map(
          ({ action, value }) => [action, value],
        );
      expect(calls(false)).toEqual([
        ['allow', 1],
        ['block', 1],
        ['warn', 1],
      ]);
      expect(calls(true)).toEqual(calls(false));
      expect(c.toolCalls.filter((x) => x.shadow === true)).toHaveLength(3);
      const decisions = c.decisions
        .filter((x) => x.shadow === true)
        .map(({ axis, action, value }) => ({ axis, action, value }));
      expect(sorted(decisions)).toEqual([
        { axis: 'exact_failure', action: 'block', value: 1 },
        { axis: 'exact_failure', action: 'warn', value: 1 },
      ]);
      expect(c.decisions.filter((x) => x.shadow === undefined)).toHaveLength(2);
      // only the enforced run was halted
      expect(c.haltedSessions).toEqual([{ service: 'agent-a', value: 1 }]);
    });

    it('flags the calls of a shadow run on its timeline', async () => {
      await store.insert(shadowRuns());
      const shadowed = await store.session('shadowed');
      expect(shadowed?.calls.map((x) => [x.action, x.outcome, x.shadow])).toEqual([
        ['allow', 'error', true],
        ['warn', 'error', true],
        ['block', 'error', true],
      ]);
      const enforced = await store.session('enforced');
      expect(enforced?.calls.map((x) => x.shadow)).toEqual([undefined, undefined, undefined]);
      expect(enforced?.calls.at(-1)?.outcome).toBe('blocked');
    });

    // a minute of raw spans; whole hours (the rollups); a range whose first hour is partial
    const ranges = [
      ['raw', { from: T0, to: T0 + MIN }],
      ['rollup', ALL],
      ['partial hours', { from: T0 + 500, to: T0 + 300 * MIN }],
    ] as const;

    it.each(ranges)(
      'shows shadow decisions apart in sessions and summary (%s)',
      async (_n, range) => {
        await store.insert(shadowRuns());
        const list = await store.sessions(range, { sort: 'scope', order: 'asc' });
        const rows = Object.fromEntries(list.rows.map((r) => [r.scope, r]));
        expect(rows.enforced).toMatchObject({
          worstAction: 'block',
          halted: true,
          warns: 1,
          blocks: 1,
          shadow: { nudges: 0, warns: 0, blocks: 0, halts: 0, worstAction: 'allow', halted: false },
        });
        // the shadow run stopped nothing: no enforced badge, but what it would have been
        expect(rows.shadowed).toMatchObject({
          worstAction: 'allow',
          halted: false,
          nudges: 0,
          warns: 0,
          blocks: 0,
          shadow: { nudges: 0, warns: 1, blocks: 1, halts: 0, worstAction: 'block', halted: true },
        });
        const summary = await store.summary(range);
        expect(summary).toMatchObject({ warns: 1, blocks: 1, haltedSessions: 1 });
        expect(summary.shadow).toEqual({
          nudges: 0,
          warns: 1,
          blocks: 1,
          halts: 0,
          haltedSessions: 1,
        });
        const detail = await store.session('shadowed', range);
        expect(detail?.session.shadow.halted).toBe(true);
        expect(detail?.session.halted).toBe(false);
      },
    );

    it.each(ranges)(
      'counts shadow findings apart on hotspots, in every order (%s)',
      async (_n, range) => {
        await store.insert([
          ...shadowRuns(),
          // another hotspot, so that the pages have something to order
          makeToolSpan({ scope: 'other', tool: 'ls', args: '.', timeMs: T0 + 5000 }),
        ]);
        const sorts = [
          { sort: 'calls', order: 'desc' },
          { sort: 'calls', order: 'asc' },
          { sort: 'blocks', order: 'desc' },
          { sort: 'signature', order: 'asc' },
          { sort: 'firstSeen', order: 'asc' },
          { sort: 'sessions', order: 'desc' },
        ] as const;
        for (const page of sorts) {
          const { rows, total } = await store.hotspots(range, page);
          expect(total).toBe(2);
          const deploy = rows.find((r) => r.tool === 'deploy');
          expect(deploy, JSON.stringify(page)).toMatchObject({
            calls: 6,
            nudges: 0,
            warns: 1,
            blocks: 1,
            halts: 0,
            shadow: { nudges: 0, warns: 1, blocks: 1, halts: 0 },
            sessions: 2,
          });
          expect(rows.find((r) => r.tool === 'ls')?.shadow).toEqual({
            nudges: 0,
            warns: 0,
            blocks: 0,
            halts: 0,
          });
        }
      },
    );

    it('counts each finding of a call on its hotspot, not the call by its strongest action', async () => {
      const findings = (shadow: boolean) =>
        makeToolSpan({
          scope: shadow ? 's' : 'e',
          tool: 'grep',
          args: 'x',
          timeMs: T0 + (shadow ? 2000 : 1000),
          action: 'block',
          axis: 'repetition',
          findings: [
            { action: 'nudge', axis: 'streak' },
            { action: 'block', axis: 'repetition' },
            { action: 'halt', axis: 'repetition' },
          ],
          attributes: shadow ? SHADOW : {},
        });
      await store.insert([findings(false), findings(true)]);
      for (const [, range] of ranges) {
        const [h] = (await store.hotspots(range)).rows;
        expect(h).toMatchObject({
          calls: 2,
          nudges: 1,
          warns: 0,
          blocks: 1,
          halts: 1,
          shadow: { nudges: 1, warns: 0, blocks: 1, halts: 1 },
        });
        const s = await store.summary(range);
        expect([s.nudges, s.blocks, s.halts]).toEqual([1, 1, 1]);
        expect(s.shadow).toMatchObject({ nudges: 1, blocks: 1, halts: 1 });
      }
    });
  });
}
