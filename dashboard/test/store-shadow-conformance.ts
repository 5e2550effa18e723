import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';
import { T0 } from './store-seed.js';

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
  });
}
