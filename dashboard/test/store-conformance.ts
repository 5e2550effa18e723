import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryFilter, Store } from '../src/store/types.js';
import { hexId, makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';
import { describeFidelityConformance } from './store-fidelity-conformance.js';
import { describePagingConformance } from './store-paging-conformance.js';

export { hexId, makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';

/** Base time of the fixtures: 2026-01-01T00:00:00Z. */
export const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const all: QueryFilter = { from: T0 - 60 * MIN, to: T0 + 600 * MIN };

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

    /** Two services; a blocked grep loop, a nudged read loop, a clean session and an LLM span. */
    async function seed(): Promise<void> {
      await store.insert([
        ...makeLoop({
          scope: 'run-1',
          tool: 'grep',
          args: 'needle',
          repeats: 9,
          startMs: T0,
          blocked: true,
        }),
        ...makeLoop({
          scope: 'run-2',
          tool: 'read',
          args: 'file',
          service: 'agent-b',
          repeats: 5,
          startMs: T0 + 10 * MIN,
        }),
        makeToolSpan({
          scope: 'run-3',
          tool: 'grep',
          args: 'needle',
          timeMs: T0 + 20 * MIN,
          conversationId: 'conv-3',
          durationMs: 2000,
          count: 2,
        }),
        makeToolSpan({ scope: 'run-3', tool: 'write', args: 'out', timeMs: T0 + 21 * MIN }),
        makePlainSpan({ timeMs: T0 + 22 * MIN }),
      ]);
    }

    it('returns zeros and empty pages on an empty store', async () => {
      expect(await store.summary(all)).toEqual({
        spans: 0,
        calls: 0,
        nudges: 0,
        warns: 0,
        blocks: 0,
        halts: 0,
        sessions: 0,
        loopShare: 0,
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
      await seed();
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

    it('aggregates hotspots per signature', async () => {
      await seed();
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
      await seed();
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
      await seed();
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

    it('lists sessions with worst action and halted flag', async () => {
      await seed();
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

    it('returns a session timeline in time order with events and attributes', async () => {
      await seed();
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
      await seed();
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
      await seed();
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
      await seed();
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
  describeFidelityConformance(name, makeStore);
  describePagingConformance(name, makeStore);
}
