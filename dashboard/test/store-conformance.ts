import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { hexId, makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';
import { describeDedupConformance } from './store-dedup-conformance.js';
import { describeFidelityConformance } from './store-fidelity-conformance.js';
import { describeListConformance } from './store-list-conformance.js';
import { describePagingConformance } from './store-paging-conformance.js';
import { ALL as all, MIN, seedStore, T0 } from './store-seed.js';
import { describeShadowConformance } from './store-shadow-conformance.js';

export { hexId, makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';
export { T0 } from './store-seed.js';

/**
 * The behaviour every Store must show. `makeStore` returns a fresh, empty store each time; the
 * suite closes it after each test.
 */
export function describeStoreConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('returns zeros and empty pages on an empty store', async () => {
      expect(await store.summary(all)).toEqual({
        spans: 0,
        calls: 0,
        nudges: 0,
        warns: 0,
        blocks: 0,
        halts: 0,
        sessions: 0,
        haltedSessions: 0,
        loopShare: 0,
        shadow: { nudges: 0, warns: 0, blocks: 0, halts: 0, haltedSessions: 0 },
      });
      expect(await store.hotspots(all)).toEqual({ rows: [], total: 0 });
      expect(await store.sessions(all)).toEqual({ rows: [], total: 0 });
      expect(await store.session('nope')).toBeUndefined();
      expect(await store.trace(hexId(16))).toEqual([]);
      expect(await store.facets(all)).toEqual({ services: [], tools: [] });
      const c = await store.counters();
      expect(c.ingestedSpans).toBe(0);
      expect(c.toolCalls).toEqual([]);
      expect(await store.deleteBefore(T0)).toBe(0);
    });

    it('summarises spans, calls, actions and sessions', async () => {
      await seedStore(store);
      const s = await store.summary(all);
      expect(s).toMatchObject({
        spans: 17,
        calls: 16,
        nudges: 5,
        warns: 0,
        blocks: 1,
        halts: 0,
        sessions: 3,
      });
      expect(s.loopShare).toBeCloseTo(6 / 16);
      const b = await store.summary({ ...all, service: 'agent-b' });
      expect(b).toMatchObject({ spans: 5, calls: 5, nudges: 2, sessions: 1 });
      const early = await store.summary({ from: T0, to: T0 + 5 * MIN });
      expect(early).toMatchObject({ calls: 9, blocks: 1, sessions: 1 });
    });

    it('returns a session timeline in time order with events and attributes', async () => {
      await seedStore(store);
      const detail = await store.session('run-1');
      expect(detail?.session).toMatchObject({ scope: 'run-1', calls: 9, halted: true });
      const calls = detail!.calls;
      expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(calls[0]!.time).toBe(T0);
      expect(calls[0]!.durationMs).toBe(10);
      expect(calls[2]).toMatchObject({ action: 'nudge', axis: 'streak', level: 1, outcome: 'ok' });
      expect(calls[2]!.events).toEqual([
        {
          time: T0 + 2000,
          name: 'loopguard.nudge',
          attributes: expect.objectContaining({ 'loopguard.axis': 'streak' }),
        },
      ]);
      expect(calls[8]).toMatchObject({ action: 'block', axis: 'repetition', outcome: 'blocked' });
      expect(calls[8]!.attributes['error.type']).toBe('loopguard.blocked');
      expect(calls[0]!.attributes['gen_ai.tool.name']).toBe('grep');
      expect(calls[0]!.level).toBeUndefined();
      const narrowed = await store.session('run-1', { from: T0 + 5000, to: T0 + 7000 });
      expect(narrowed?.calls.map((c) => c.streak)).toEqual([6, 7]);
      expect(await store.session('run-1', { service: 'agent-b' })).toBeUndefined();
      const paged = await store.session('run-1', {}, { limit: 3, offset: 3 });
      expect(paged?.session.calls).toBe(9);
      expect(paged?.calls.map((c) => c.streak)).toEqual([4, 5, 6]);
      const odd = 'scope/with spaces?&ü';
      await store.insert([makeToolSpan({ scope: odd, timeMs: T0 })]);
      expect((await store.session(odd))?.session.scope).toBe(odd);
    });

    it('buckets decisions over time, zero-filled', async () => {
      await seedStore(store);
      const s = await store.series({ from: T0, to: T0 + 30 * MIN }, 10 * MIN);
      expect(s.bucketMs).toBe(10 * MIN);
      expect(s.points).toEqual([
        { t: T0, allow: 5, nudge: 3, warn: 0, block: 1, halt: 0 },
        { t: T0 + 10 * MIN, allow: 3, nudge: 2, warn: 0, block: 0, halt: 0 },
        { t: T0 + 20 * MIN, allow: 2, nudge: 0, warn: 0, block: 0, halt: 0 },
      ]);
      const empty = await store.series({ from: T0 + 100 * MIN, to: T0 + 103 * MIN }, MIN);
      expect(empty.points.map((p) => p.t)).toEqual([
        T0 + 100 * MIN,
        T0 + 101 * MIN,
        T0 + 102 * MIN,
      ]);
      expect(empty.points.every((p) => p.allow + p.nudge + p.warn + p.block + p.halt === 0)).toBe(
        true,
      );
    });

    it('returns every span of a trace, tool calls and others', async () => {
      const traceId = hexId(16);
      const root = makePlainSpan({ traceId, name: 'invoke_agent', timeMs: T0 });
      const call = makeToolSpan({
        traceId,
        parentSpanId: root.spanId,
        timeMs: T0 + 1,
        action: 'warn',
        axis: 'exact_failure',
        outcome: 'error',
      });
      await store.insert([call, root, makePlainSpan({ timeMs: T0 })]);
      const spans = await store.trace(traceId);
      expect(spans.map((s) => s.spanId)).toEqual([root.spanId, call.spanId]);
      expect(spans[0]).toMatchObject({
        traceId,
        parentSpanId: '',
        name: 'invoke_agent',
        kind: 'Client',
        serviceName: 'agent-a',
        start: T0,
        durationMs: 5,
        statusCode: 'Ok',
      });
      expect(spans[1]).toMatchObject({ parentSpanId: root.spanId, statusCode: 'Error' });
      expect(spans[1]!.attributes['loopguard.axis']).toBe('exact_failure');
      expect(spans[1]!.events[0]!.name).toBe('loopguard.warn');
      expect(await store.trace(traceId.toUpperCase())).toHaveLength(2);
      // a child that starts in the same instant as its root is listed after it, whatever the ids
      for (let i = 0; i < 8; i++) {
        const tied = hexId(16);
        const top = makePlainSpan({ traceId: tied, name: 'invoke_agent', timeMs: T0 });
        const child = makeToolSpan({ traceId: tied, parentSpanId: top.spanId, timeMs: T0 });
        await store.insert([child, top]);
        expect((await store.trace(tied)).map((s) => s.name)).toEqual([
          'invoke_agent',
          'execute_tool grep',
        ]);
      }
    });

    it('lists facets of a range', async () => {
      await seedStore(store);
      expect(await store.facets(all)).toEqual({
        services: ['agent-a', 'agent-b'],
        tools: ['grep', 'read', 'write'],
      });
      expect(await store.facets({ ...all, service: 'agent-b' })).toEqual({
        services: ['agent-a', 'agent-b'],
        tools: ['read'],
      });
      expect(await store.facets({ from: T0 + 500 * MIN, to: T0 + 501 * MIN })).toEqual({
        services: [],
        tools: [],
      });
    });

    it('keeps monotonic counters across deleteBefore', async () => {
      await seedStore(store);
      await store.insert([], new Map([['invalid_span_id', 2]]));
      await store.insert(
        [],
        new Map([
          ['invalid_span_id', 1],
          ['invalid_trace_id', 4],
        ]),
      );
      const before = await store.counters();
      expect(before.ingestedSpans).toBe(17);
      expect(before.rejectedSpans).toEqual(
        expect.arrayContaining([
          { reason: 'invalid_span_id', value: 3 },
          { reason: 'invalid_trace_id', value: 4 },
        ]),
      );
      expect(before.toolCalls).toEqual(
        expect.arrayContaining([
          { service: 'agent-a', tool: 'grep', action: 'allow', value: 6 },
          { service: 'agent-a', tool: 'grep', action: 'nudge', value: 3 },
          { service: 'agent-a', tool: 'grep', action: 'block', value: 1 },
          { service: 'agent-b', tool: 'read', action: 'nudge', value: 2 },
        ]),
      );
      expect(before.decisions).toEqual(
        expect.arrayContaining([
          { service: 'agent-a', tool: 'grep', axis: 'streak', action: 'nudge', value: 3 },
          { service: 'agent-a', tool: 'grep', axis: 'repetition', action: 'block', value: 1 },
        ]),
      );
      expect(before.haltedSessions).toEqual([{ service: 'agent-a', value: 1 }]);
      expect(await store.deleteBefore(T0 + 15 * MIN)).toBe(14);
      expect((await store.summary(all)).spans).toBe(3);
      expect((await store.hotspots(all)).rows.map((r) => [r.tool, r.calls])).toEqual([
        ['grep', 1],
        ['write', 1],
      ]);
      expect(await store.counters()).toEqual(before);
      // a later block in an already halted scope does not count the session twice
      await store.insert(
        makeLoop({ scope: 'run-1', repeats: 1, startMs: T0 + 30 * MIN, blocked: true }),
      );
      const after = await store.counters();
      expect(after.haltedSessions).toEqual([{ service: 'agent-a', value: 1 }]);
      expect(after.ingestedSpans).toBe(18);
    });

    it('commits concurrent inserts independently', async () => {
      const batches = Array.from({ length: 20 }, (_, b) =>
        Array.from({ length: 50 }, (_, i) => makeToolSpan({ scope: `s${b}`, timeMs: T0 + i })),
      );
      await Promise.all(batches.map((b) => store.insert(b)));
      expect((await store.summary(all)).calls).toBe(1000);
      expect((await store.counters()).ingestedSpans).toBe(1000);
      expect((await store.sessions(all)).total).toBe(20);
    });

    it('close is idempotent', async () => {
      await store.insert([makeToolSpan({ timeMs: T0 })]);
      await store.close();
      await store.close();
      await expect(store.insert([makeToolSpan()])).rejects.toThrow();
    });
  });
  describeListConformance(name, makeStore);
  describeDedupConformance(name, makeStore);
  describeFidelityConformance(name, makeStore);
  describePagingConformance(name, makeStore);
  describeShadowConformance(name, makeStore);
}
