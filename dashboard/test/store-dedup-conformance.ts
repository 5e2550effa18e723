import { afterEach, describe, expect, it } from 'vitest';
import type { QueryFilter } from '../src/api/types.js';
import type { SpanRecord } from '../src/otlp/span.js';
import type { Store } from '../src/store/index.js';
import { makeLoop, makePlainSpan, makeToolSpan } from './span-fixtures.js';
import { ALL, MIN, T0 } from './store-seed.js';

/** A range cutting minutes at both ends: whole minutes from rollups, the edges from raw spans. */
const EDGES: QueryFilter = { from: T0 + 1234, to: T0 + 25 * MIN + 999 };

/**
 * Two loops over several minutes (one blocked), a call with a finding event in a trace of its
 * own beside its root span, and a span that is no tool call.
 */
function retryFixture(): SpanRecord[] {
  const blocked = makeLoop({
    scope: 'dup-1',
    tool: 'grep',
    args: 'needle',
    repeats: 9,
    startMs: T0 + 30_000,
    stepMs: 50_000,
    blocked: true,
  });
  const nudged = makeLoop({
    scope: 'dup-2',
    tool: 'read',
    service: 'agent-b',
    repeats: 5,
    startMs: T0 + 10 * MIN,
  });
  const root = makePlainSpan({ name: 'invoke_agent', timeMs: T0 + 3 * MIN });
  const warned = makeToolSpan({
    scope: 'dup-3',
    tool: 'write',
    traceId: root.traceId,
    parentSpanId: root.spanId,
    timeMs: T0 + 3 * MIN + 5,
    action: 'warn',
    axis: 'exact_failure',
    outcome: 'error',
  });
  return [...blocked, ...nudged, root, warned, makePlainSpan({ timeMs: T0 + 4 * MIN })];
}

/** Every answer a retry could change: totals, lists (rollup and edge ranges), detail, counters. */
async function answers(store: Store, traceId: string) {
  return {
    summary: await store.summary(ALL),
    summaryEdges: await store.summary(EDGES),
    hotspots: await store.hotspots(ALL),
    hotspotsEdges: await store.hotspots(EDGES),
    hotspotsBlocked: await store.hotspots({ ...ALL, action: 'block' }),
    sessions: await store.sessions(ALL),
    sessionsEdges: await store.sessions(EDGES),
    sessionsNudged: await store.sessions({ ...ALL, action: 'nudge' }),
    session: await store.session('dup-1'),
    trace: await store.trace(traceId),
    series: await store.series(ALL, 60 * MIN),
    facets: await store.facets(ALL),
    counters: await store.counters(),
  };
}

/**
 * Exporter retries: a span sent again (same trace id and span id), alone, in the same batch or
 * in a batch composed differently, must answer as if it had been sent once, in the spans, the
 * rollups behind the lists and the /metrics counters alike.
 */
export function describeDedupConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store dedup conformance: ${name}`, () => {
    let store: Store | undefined;
    afterEach(async () => {
      await store?.close();
      store = undefined;
    });
    /** The answers of a fresh store that got each span once (closed before the test's own). */
    async function sentOnce(spans: SpanRecord[], traceId: string) {
      const once = await makeStore();
      try {
        await once.insert(spans);
        return await answers(once, traceId);
      } finally {
        await once.close();
      }
    }

    it('answers the same after a batch is re-sent, as is or re-batched', async () => {
      const spans = retryFixture();
      const traceId = spans[spans.length - 2]!.traceId;
      store = await makeStore();
      await store.insert(spans);
      const once = await answers(store, traceId);
      expect(once.summary).toMatchObject({ spans: 17, calls: 15, blocks: 1, warns: 1 });
      expect(once.counters.ingestedSpans).toBe(17);
      expect(once.hotspots.rows[0]).toMatchObject({ tool: 'grep', calls: 9, blocks: 1 });
      expect(once.trace).toHaveLength(2);
      await store.insert(spans);
      expect(await answers(store, traceId)).toEqual(once);
      await store.insert([...spans].reverse());
      await store.insert(spans.filter((_, i) => i % 2 === 0));
      expect(await answers(store, traceId)).toEqual(once);
    });

    it('counts only the new spans of a partially overlapping batch', async () => {
      const spans = retryFixture();
      const traceId = spans[spans.length - 2]!.traceId;
      const expected = await sentOnce(spans, traceId);
      store = await makeStore();
      // a first batch, then a retry holding half of it again, re-ordered, with the rest
      await store.insert(spans.slice(0, 10));
      await store.insert([...spans.slice(5).reverse(), spans[0]!]);
      expect(await answers(store, traceId)).toEqual(expected);
      expect((await store.counters()).ingestedSpans).toBe(17);
    });

    it('stores a span repeated in a batch, or in concurrent batches, once', async () => {
      const spans = retryFixture();
      const traceId = spans[spans.length - 2]!.traceId;
      const expected = await sentOnce(spans, traceId);
      store = await makeStore();
      const a = spans.slice(0, 8);
      const b = spans.slice(6, 14);
      const c = spans.slice(12);
      await store.insert([...a, a[0]!, a[1]!, ...a]);
      await Promise.all([store.insert(b), store.insert([...c, ...b.slice(0, 3)]), store.insert(a)]);
      expect(await answers(store, traceId)).toEqual(expected);
      expect((await store.summary(ALL)).calls).toBe(15);
    });
  });
}
