import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hotspot, QueryFilter } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { HOTSPOT_SORTS } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';
import { ALL as all, MIN, seedStore, T0 } from './store-seed.js';

/** Hotspot and session lists every Store must return: aggregates, filters, paging and sorting. */
export function describeListConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store list conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('aggregates hotspots per signature', async () => {
      await seedStore(store);
      const page = await store.hotspots(all);
      expect(page.total).toBe(3);
      const grep = page.rows[0]!;
      expect(grep).toMatchObject({
        service: 'agent-a',
        tool: 'grep',
        calls: 10,
        longestStreak: 9,
        nudges: 3,
        blocks: 1,
        halts: 0,
        sessions: 2,
        firstSeen: T0,
        lastSeen: T0 + 20 * MIN,
        sampleArgs: 'needle',
      });
      // repeats (count > 1): 8 loop calls of 10 ms and the 2 s call of run-3
      expect(grep.repeatSeconds).toBeCloseTo(8 * 0.01 + 2, 5);
      expect(page.rows.map((r) => r.calls)).toEqual([10, 5, 1]);
    });

    it('filters hotspots by service, tool, action, signature and search', async () => {
      await seedStore(store);
      expect(
        (await store.hotspots({ ...all, service: 'agent-b' })).rows.map((r) => r.tool),
      ).toEqual(['read']);
      expect((await store.hotspots({ ...all, tool: 'write' })).rows.map((r) => r.tool)).toEqual([
        'write',
      ]);
      const blocked = await store.hotspots({ ...all, action: 'block' });
      expect(blocked.rows).toHaveLength(1);
      expect(blocked.rows[0]).toMatchObject({ tool: 'grep', calls: 1, blocks: 1 });
      const sig = (await store.hotspots(all)).rows[1]!.signature;
      expect(
        (await store.hotspots({ ...all, signature: sig })).rows.map((r) => r.signature),
      ).toEqual([sig]);
      expect((await store.hotspots({ ...all, search: 'RUN-3' })).total).toBe(2);
      expect((await store.hotspots({ ...all, search: 'no such thing' })).rows).toEqual([]);
      expect((await store.hotspots({ from: T0 + 500 * MIN, to: T0 + 501 * MIN })).total).toBe(0);
    });

    it('aggregates hotspots exactly across whole and partial hours', async () => {
      const spans = Array.from({ length: 12 }, (_, k) =>
        makeToolSpan({
          scope: `hour-${k % 3}`,
          args: 'hourly',
          timeMs: T0 + k * 20 * MIN,
          streak: k + 1,
          count: k + 1,
          durationMs: 1000,
          action: k % 4 === 3 ? 'warn' : 'allow',
          axis: k % 4 === 3 ? 'repetition' : undefined,
        }),
      );
      await store.insert(spans);
      const range = { from: T0 + 10 * MIN, to: T0 + 230 * MIN };
      const [h] = (await store.hotspots(range)).rows;
      // k = 1..11 fall in the range
      expect(h).toMatchObject({
        calls: 11,
        longestStreak: 12,
        warns: 3,
        sessions: 3,
        firstSeen: T0 + 20 * MIN,
        lastSeen: T0 + 220 * MIN,
      });
      expect(h!.repeatSeconds).toBeCloseTo(11, 5);
      const warned = (await store.hotspots({ ...range, action: 'warn' })).rows[0];
      expect(warned).toMatchObject({ calls: 3, warns: 3, sessions: 3 });
      const bySessions = (await store.hotspots(range, { sort: 'sessions' })).rows[0];
      expect(bySessions).toMatchObject({ calls: 11, sessions: 3 });
      const sessions = await store.sessions(range, { sort: 'scope', order: 'asc' });
      expect(sessions.rows.map((r) => [r.scope, r.calls])).toEqual([
        ['hour-0', 3],
        ['hour-1', 4],
        ['hour-2', 4],
      ]);
      expect(sessions.rows[0]).toMatchObject({ start: T0 + 60 * MIN, end: T0 + 180 * MIN + 1000 });
      // the same sessions computed straight from the spans (a tool filter needs per-call detail)
      expect(
        await store.sessions({ ...range, tool: 'grep' }, { sort: 'scope', order: 'asc' }),
      ).toEqual(sessions);
      expect(await store.deleteBefore(T0 + 70 * MIN)).toBe(4);
      const left = await store.sessions(
        { from: T0, to: T0 + 600 * MIN },
        { sort: 'scope', order: 'asc' },
      );
      expect(left.rows.map((r) => [r.scope, r.calls, r.start])).toEqual([
        ['hour-0', 2, T0 + 120 * MIN],
        ['hour-1', 3, T0 + 80 * MIN],
        ['hour-2', 3, T0 + 100 * MIN],
      ]);
      const after = (await store.hotspots({ from: T0, to: T0 + 600 * MIN })).rows[0];
      expect(after).toMatchObject({ calls: 8, firstSeen: T0 + 80 * MIN, longestStreak: 12 });
    });

    it('pages and sorts hotspots', async () => {
      await seedStore(store);
      const first = await store.hotspots(all, { limit: 2, offset: 0, sort: 'tool', order: 'asc' });
      const second = await store.hotspots(all, { limit: 2, offset: 2, sort: 'tool', order: 'asc' });
      expect(first.total).toBe(3);
      expect(second.total).toBe(3);
      expect([...first.rows, ...second.rows].map((r) => r.tool)).toEqual(['grep', 'read', 'write']);
      const byStreak = await store.hotspots(all, {
        sort: 'longestStreak',
        order: 'desc',
        limit: 1,
      });
      expect(byStreak.rows[0]!.longestStreak).toBe(9);
      const past = await store.hotspots(all, { offset: 10 });
      expect(past).toEqual({ rows: [], total: 3 });
    });

    it('answers every hotspot sort and page from the rollups as from the spans', async () => {
      // 400 calls over seven hours: 4 tools, 2 services, 12 argument sets, every action
      let seed = 7;
      const next = (n: number) => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        return (seed >>> 8) % n;
      };
      const actions = ['allow', 'allow', 'nudge', 'warn', 'block', 'halt'] as const;
      await store.insert(
        Array.from({ length: 400 }, (_, i) => {
          const tool = ['grep', 'read', 'write', 'fetch'][next(4)]!;
          return makeToolSpan({
            timeMs: T0 + i * 63_000 + next(60_000),
            service: next(3) === 0 ? 'agent-b' : 'agent-a',
            tool,
            args: `${tool}-${next(12)}`,
            action: actions[next(actions.length)]!,
            streak: 1 + next(9),
            count: 1 + next(4),
            durationMs: 1 + next(500),
            scope: `run-${next(9)}`,
          });
        }),
      );
      // partial hours at both ends; `search` that every signature contains takes the span table
      const range = { from: T0 + 17 * MIN + 123, to: T0 + 401 * MIN + 45_678 };
      // `sessions` always takes the span table
      const sorts = HOTSPOT_SORTS.filter((sort) => sort !== 'sessions');
      const withoutSample = (rows: Hotspot[]) => rows.map(({ sampleArgs: _, ...row }) => row);
      for (const sort of sorts) {
        for (const order of ['asc', 'desc'] as const) {
          for (const offset of [0, 13]) {
            const page = { sort, order, limit: 13, offset };
            const fromRollups = await store.hotspots(range, page);
            const fromSpans = await store.hotspots({ ...range, search: ':' }, page);
            expect(fromRollups.total, `${sort} ${order}`).toBe(fromSpans.total);
            expect(withoutSample(fromRollups.rows), `${sort} ${order} ${offset}`).toEqual(
              withoutSample(fromSpans.rows),
            );
          }
        }
      }
      expect((await store.hotspots(range)).total).toBeGreaterThan(30);
    });

    it('lists sessions with worst action and halted flag', async () => {
      await seedStore(store);
      const page = await store.sessions(all, { sort: 'start', order: 'asc' });
      expect(page.total).toBe(3);
      expect(page.rows.map((r) => r.scope)).toEqual(['run-1', 'run-2', 'run-3']);
      expect(page.rows[0]).toMatchObject({
        service: 'agent-a',
        calls: 9,
        longestStreak: 9,
        worstAction: 'block',
        halted: true,
        nudges: 3,
        blocks: 1,
        start: T0,
      });
      expect(page.rows[0]!.end).toBe(T0 + 8000 + 10);
      expect(page.rows[1]).toMatchObject({
        service: 'agent-b',
        worstAction: 'nudge',
        halted: false,
        nudges: 2,
      });
      expect(page.rows[2]).toMatchObject({
        worstAction: 'allow',
        halted: false,
        conversationId: 'conv-3',
        calls: 2,
      });
      const halted = await store.sessions({ ...all, action: 'block' });
      expect(halted.rows.map((r) => r.scope)).toEqual(['run-1']);
      expect(halted.rows[0]!.calls).toBe(9);
      expect((await store.sessions({ ...all, search: 'write' })).rows.map((r) => r.scope)).toEqual([
        'run-3',
      ]);
      expect((await store.sessions({ ...all, service: 'agent-b' })).total).toBe(1);
      const paged = await store.sessions(all, {
        limit: 1,
        offset: 1,
        sort: 'calls',
        order: 'desc',
      });
      expect(paged).toMatchObject({ total: 3, rows: [{ scope: 'run-2' }] });
    });

    it('picks the sessions where one call matches action, signature and search together', async () => {
      // s1: grep x3, the third nudged; s2: grep once (allowed), then read x3, the third nudged
      const grep = (scope: string, i: number, action: 'allow' | 'nudge') =>
        makeToolSpan({ scope, tool: 'grep', args: 'needle', action, timeMs: T0 + i });
      const read = (i: number, action: 'allow' | 'nudge') =>
        makeToolSpan({ scope: 's2', tool: 'read', args: 'file', action, timeMs: T0 + i });
      await store.insert([
        grep('s1', 0, 'allow'),
        grep('s1', 1, 'allow'),
        grep('s1', 2, 'nudge'),
        grep('s2', 10, 'allow'),
        read(11, 'allow'),
        read(12, 'allow'),
        read(13, 'nudge'),
      ]);
      const signature = grep('s1', 0, 'allow').attributes['loopguard.signature']!;
      const scopes = async (f: Partial<QueryFilter>) =>
        (await store.sessions({ ...all, ...f })).rows.map((r) => r.scope).sort();
      expect(await scopes({ action: 'nudge', signature })).toEqual(['s1']);
      expect(await scopes({ action: 'nudge', search: 'grep' })).toEqual(['s1']);
      expect(await scopes({ signature, search: 'read' })).toEqual([]);
      expect(await scopes({ action: 'nudge' })).toEqual(['s1', 's2']);
      expect(await scopes({ signature })).toEqual(['s1', 's2']);
    });
  });
}
