import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DetectingStore, detectingStore } from '../src/detect/index.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import { openDuckDbStore, type Store } from '../src/store/index.js';
import { hexId } from './span-fixtures.js';
import { ALL, T0 } from './store-seed.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-late-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** An OpenInference TOOL span: `tool` called with `q` at T0 + `at` s, in session `session`. */
function call(o: { at: number; q: string; session: string; tool?: string; trace?: string }) {
  const span: SpanRecord = {
    traceId: o.trace ?? hexId(16),
    spanId: hexId(8),
    parentSpanId: hexId(8),
    traceState: '',
    name: o.tool ?? 'search',
    kind: 'Internal',
    serviceName: 'py-agent',
    scopeName: 'openinference.instrumentation.langchain',
    scopeVersion: '0.1.0',
    startTimeUnixNano: BigInt(T0 + o.at * 1000) * 1_000_000n,
    durationNs: 5_000_000n,
    statusCode: 'Unset',
    statusMessage: '',
    attributes: {
      'openinference.span.kind': 'TOOL',
      'tool.name': o.tool ?? 'search',
      'input.value': JSON.stringify({ q: o.q }),
      'output.value': 'nothing found',
      'session.id': o.session,
    },
    resourceAttributes: { 'service.name': 'py-agent' },
    events: [],
    links: [],
  };
  return span;
}

/**
 * Two sessions: `a` repeats one search (nudged, then more) around a different search and a
 * second tool; `b` repeats another. The late calls break a/b streaks or lengthen them.
 */
function fixture() {
  const trace = hexId(16);
  const a = (at: number, q: string, tool?: string) => call({ at, q, session: 'a', trace, tool });
  const b = (at: number, q: string) => call({ at, q, session: 'b' });
  const onTime = [
    a(10, 'x'),
    a(20, 'x'),
    a(30, 'x'),
    a(40, 'x'),
    a(50, 'x'),
    a(60, 'y', 'read'),
    a(70, 'x'),
    b(10, 'z'),
    b(20, 'z'),
    b(40, 'z'),
  ];
  // a different search between the 2nd and 3rd of a's: the streak restarts; and one more of b's
  // repeats before its third: b's third is flagged later
  const late = [a(25, 'other'), b(30, 'z'), a(5, 'x')];
  return { onTime, late, all: [...onTime, ...late] };
}

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const stores: [string, () => Promise<Store>][] = [
  ['duckdb', () => openDuckDbStore({ path: join(dir, `late-${n++}.duckdb`) })],
  ['clickhouse', () => createClickHouseStore({ executor: createChdbExecutor() })],
];

/** A detecting store with a settable clock, settling after 10 ms of quiet. */
async function detecting(make: () => Promise<Store>) {
  const c = clock();
  const store = detectingStore(await make(), {
    quietMs: 10,
    tickMs: 60_000,
    now: c.now,
    engine: { configFile: false },
  });
  /** Inserts a batch, lets its scopes settle and stores their decisions. */
  const send = async (spans: SpanRecord[]) => {
    await store.insert(spans);
    c.advance(10);
    await store.settle();
  };
  return { store, send };
}

/** Everything the lists and the session view answer about the calls. */
async function answers(store: DetectingStore) {
  const sessionCalls = async (scope: string) => {
    const detail = await store.session(scope, ALL);
    return {
      session: detail?.session,
      calls: detail?.calls.map((c) => ({
        time: c.time,
        tool: c.tool,
        signature: c.signature,
        action: c.action,
        axis: c.axis,
        streak: c.streak,
        count: c.count,
        level: c.level,
        events: c.events.map((e) => e.name).sort(),
      })),
    };
  };
  const hotspots = (await store.hotspots(ALL)).rows;
  const sessions = (await store.sessions(ALL)).rows;
  return {
    a: await sessionCalls('a'),
    b: await sessionCalls('b'),
    hotspots,
    sessions,
    nudged: (await store.sessions({ ...ALL, action: 'nudge' })).rows.map((r) => r.scope),
    summary: await store.summary(ALL),
  };
}

/** The same spans with fresh copies (each store keeps what it was given). */
const copy = (spans: SpanRecord[]) => spans.map((s) => ({ ...s, attributes: { ...s.attributes } }));

describe.each(stores)('late calls re-decide what follows them (%s)', (_name, make) => {
  it('stores the decisions of deciding the whole scope in start order', async () => {
    const { onTime, late, all } = fixture();
    const traceOf = (spans: Awaited<ReturnType<Store['trace']>>) =>
      spans
        .filter((s) => s.name === 'search')
        .map((s) => [s.start, s.events.map((e) => e.name).sort()])
        .sort((x, y) => Number(x[0]) - Number(y[0]));
    // one store at a time (chDB holds one data directory per process)
    const inOrder = await detecting(make);
    let expected: Awaited<ReturnType<typeof answers>>;
    let expectedTrace: ReturnType<typeof traceOf>;
    try {
      await inOrder.send(copy(all));
      expected = await answers(inOrder.store);
      expectedTrace = traceOf(await inOrder.store.trace(onTime[0]!.traceId));
    } finally {
      await inOrder.store.close();
    }
    // a's streak of x restarts after the call at 25: its 50 s call is no longer the 5th repeat
    expect(expected.a.calls?.map((c) => c.streak)).toEqual([1, 2, 3, 1, 1, 2, 3, 1, 1]);
    expect(expected.b.calls?.map((c) => c.streak)).toEqual([1, 2, 3, 4]);

    const shuffled = await detecting(make);
    try {
      // the on-time calls in three batches out of order, each settled before the next; then the late ones
      await shuffled.send(copy([onTime[6]!, onTime[1]!, onTime[8]!]));
      await shuffled.send(copy([onTime[0]!, onTime[3]!, onTime[9]!, onTime[2]!]));
      await shuffled.send(copy([onTime[4]!, onTime[5]!, onTime[7]!]));
      const before = await answers(shuffled.store);
      expect(before.a.calls?.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 1, 1]);
      for (const spans of [[late[0]!], [late[1]!, late[2]!]]) await shuffled.send(copy(spans));
      const stats = shuffled.store.detector.stats();
      expect(stats.lateCalls).toBeGreaterThanOrEqual(3);
      expect(stats.redecidedCalls).toBeGreaterThan(0);
      expect(await answers(shuffled.store)).toEqual(expected);
      // the trace view shows the new decision's finding events, none of the first one's
      expect(traceOf(await shuffled.store.trace(onTime[0]!.traceId))).toEqual(expectedTrace);
      // every call counted once in /metrics, by its first decision
      const counted = (await shuffled.store.counters()).toolCalls.reduce((n, c) => n + c.value, 0);
      expect(counted).toBe(all.length);
    } finally {
      await shuffled.store.close();
    }
  });

  it('skips re-decided copies of spans it does not hold', async () => {
    const store = await make();
    try {
      const [span] = fixture().onTime;
      expect(await store.redecide?.([span!])).toBe(0);
      expect((await store.summary(ALL)).calls).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe('late calls re-decide into loopguard_decisions (clickhouse)', () => {
  it('leaves the otel_traces rows as inserted and reads the new decisions', async () => {
    const executor = createChdbExecutor();
    const { store, send } = await detecting(() => createClickHouseStore({ executor }));
    const rows = () => executor.query('SELECT * FROM otel_traces ORDER BY SpanId');
    try {
      const { onTime, late } = fixture();
      await send(copy(onTime));
      const inserted = await rows();
      const streakOf30 = () =>
        executor.query(
          `SELECT SpanAttributes['loopguard.streak'] AS s FROM otel_traces WHERE SpanId = {id:String}`,
          { id: onTime[2]!.spanId },
        );
      expect(await streakOf30()).toEqual([{ s: '3' }]);
      await send(copy(late));
      expect(store.detector.stats().redecidedCalls).toBeGreaterThan(0);
      // the late calls are rows of their own; the others are as inserted, with their first decision
      const lateIds = new Set(late.map((s) => s.spanId));
      expect((await rows()).filter((r) => !lateIds.has(String(r.SpanId)))).toEqual(inserted);
      expect(await streakOf30()).toEqual([{ s: '3' }]);
      const [mutations] = await executor.query(
        "SELECT count() AS n FROM system.mutations WHERE table = 'otel_traces'",
      );
      expect(Number(mutations?.n)).toBe(0);
      // the new decisions: in loopguard_decisions, newest per span, and in every read
      const decided = await executor.query(
        `SELECT SpanId, argMax(SpanAttributes['loopguard.streak'], Version) AS s
        FROM loopguard_decisions GROUP BY SpanId`,
      );
      expect(decided.find((r) => r.SpanId === onTime[2]!.spanId)).toEqual({
        SpanId: onTime[2]!.spanId,
        s: '1',
      });
      const onTimeIds = new Set(onTime.map((s) => s.spanId));
      expect(decided.every((r) => onTimeIds.has(String(r.SpanId)))).toBe(true);
      const a = (await store.session('a', ALL))!.calls;
      expect(a.map((c) => c.streak)).toEqual([1, 2, 3, 1, 1, 2, 3, 1, 1]);
      const trace = await store.trace(onTime[0]!.traceId);
      expect(trace.length).toBe(9);
      expect(
        trace.find((s) => s.spanId === onTime[2]!.spanId)?.attributes['loopguard.streak'],
      ).toBe('1');
    } finally {
      await store.close();
    }
  });
});
