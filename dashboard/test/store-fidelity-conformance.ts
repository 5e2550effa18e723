import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryFilter } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { hexId, makeToolSpan } from './span-fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const all: QueryFilter = { from: T0 - 60 * MIN, to: T0 + 600 * MIN };

/** Spans come back as they were sent: large and odd attribute sets, values beyond column ranges. */
export function describeFidelityConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store fidelity conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('stores large attribute sets and odd strings verbatim', async () => {
      const attributes: Record<string, string> = {};
      for (let i = 0; i < 2000; i++) attributes[`k${i}`] = `v${i}`;
      attributes.quote = `it's "quoted" \\ \n ü 😀`;
      const span = makeToolSpan({ scope: "o'brien", timeMs: T0, attributes });
      await store.insert([span]);
      const trace = await store.trace(span.traceId);
      expect(Object.keys(trace[0]!.attributes).length).toBeGreaterThan(2000);
      expect(trace[0]!.attributes.quote).toBe(attributes.quote);
      expect((await store.sessions(all)).rows[0]!.scope).toBe("o'brien");
    });

    it('returns the attributes exactly as received, whatever their columns hold', async () => {
      const exact = makeToolSpan({
        timeMs: T0,
        action: 'nudge',
        axis: 'streak',
        level: 2,
        streak: 5,
        args: '{"q":1}',
        conversationId: 'conv-9',
        attributes: { 'gen_ai.agent.name': 'bot', 'gen_ai.tool.call.id': 'c1', other: 'x' },
      });
      // values the typed columns cannot reproduce: they must come back from the map as sent
      const odd = makeToolSpan({
        timeMs: T0 + 1,
        scope: 'conv-0',
        attributes: {
          'loopguard.streak': '03',
          'loopguard.count': 'many',
          'loopguard.action': 'bogus',
          'loopguard.axis': '',
          'loopguard.nudge.level': '0',
          'gen_ai.conversation.id': 'conv-0',
        },
      });
      // no gen_ai.tool.name and no loopguard.scope: the columns fall back, the attributes do not
      const bare = makeToolSpan({ timeMs: T0 + 2, tool: 'ls', conversationId: 'conv-1' });
      delete bare.attributes['gen_ai.tool.name'];
      delete bare.attributes['loopguard.scope'];
      delete bare.attributes['loopguard.action'];
      await store.insert([exact, odd, bare]);
      for (const span of [exact, odd, bare]) {
        const [stored] = await store.trace(span.traceId);
        expect(stored!.attributes).toEqual(span.attributes);
      }
      const [call] = (await store.session('conv-1'))!.calls;
      expect(call!.tool).toBe('ls');
      expect(call!.attributes).toEqual(bare.attributes);
      expect(
        (await store.session(exact.attributes['loopguard.scope']!))!.calls[0]!.attributes,
      ).toEqual(exact.attributes);
    });

    it('reads integer attributes as their leading decimal digits, like parseInt', async () => {
      const cases: [string, number][] = [
        ['12abc', 12],
        [' \t7', 7],
        ['+2', 2],
        ['\u00a04', 4],
        ['3.9', 3],
        ['1e3', 1],
        ['-00012', -12],
        ['0x10', 0],
        ['- 5', 0],
        ['2147483648', 0],
      ];
      await store.insert(
        cases.map(([text], i) =>
          makeToolSpan({
            timeMs: T0 + i,
            scope: `int-${i}`,
            attributes: { 'loopguard.streak': text, 'loopguard.count': text },
          }),
        ),
      );
      for (const [i, [text, value]] of cases.entries()) {
        const [call] = (await store.session(`int-${i}`))!.calls;
        expect([call!.streak, call!.count], text).toEqual([value, value]);
      }
      const [h] = (await store.hotspots(all)).rows;
      expect(h!.longestStreak).toBe(12);
    });

    it('stores values beyond its column ranges, clamped, with the attributes as sent', async () => {
      const far = 10_413_792_000_000_000_000n; // 2300-01-01, past the int64 nanosecond range
      const late = makeToolSpan({ timeMs: T0 });
      late.startTimeUnixNano = 2n ** 64n;
      late.events[0] = { timeUnixNano: far, name: 'loopguard.nudge', attributes: {} };
      const long = makeToolSpan({ timeMs: T0 + 1, scope: 'long', count: 2, tool: 'sleep' });
      long.durationNs = 2n ** 64n - 1n;
      const big = makeToolSpan({
        timeMs: T0 + 2,
        scope: 'big',
        attributes: {
          'loopguard.streak': '3000000000',
          'loopguard.count': '-3000000000',
          'loopguard.nudge.level': '99999999999',
        },
      });
      const good = makeToolSpan({ timeMs: T0 + 3, scope: 'good' });
      await store.insert([late, long, big, good]);
      await store.insert([{ ...long, spanId: hexId(8) }]); // the rollups add up two huge durations
      const maxMs = 9_223_372_036_854; // 2262-04-11T23:47:16.854Z
      const [l] = await store.trace(late.traceId);
      expect(l!.start).toBe(maxMs);
      expect(l!.events.map((e) => e.time)).toEqual([maxMs]);
      const [d] = await store.trace(long.traceId);
      expect(d!.durationMs).toBeCloseTo(2 ** 63 / 1e6, -3);
      expect((await store.trace(big.traceId))[0]!.attributes).toEqual(big.attributes);
      const bigCall = (await store.session('big'))!.calls[0]!;
      expect([bigCall.streak, bigCall.count]).toEqual([0, 0]);
      expect((await store.trace(good.traceId)).length).toBe(1);
      const sleep = (await store.hotspots({ ...all, tool: 'sleep' })).rows[0]!;
      expect(sleep.calls).toBe(2);
      expect(sleep.repeatSeconds).toBeGreaterThan(9e9);
      expect((await store.counters()).ingestedSpans).toBe(5);
    });

    it('answers ranges that reach past the latest time it can store', async () => {
      const last = makeToolSpan({ timeMs: T0, scope: 'last', action: 'block' });
      last.startTimeUnixNano = 2n ** 64n; // clamped to 2262-04-11T23:47:16.854Z
      await store.insert([makeToolSpan({ timeMs: T0, scope: 'now' }), last]);
      const wide = { from: 0, to: 999_999_999_999_999 }; // the API's largest `to` (15 digits)
      expect(await store.summary(wide)).toMatchObject({ spans: 2, calls: 2, blocks: 1 });
      expect((await store.hotspots(wide)).rows[0]).toMatchObject({ calls: 2, blocks: 1 });
      expect((await store.sessions(wide)).total).toBe(2);
      expect((await store.sessions({ ...wide, action: 'block' })).rows[0]?.scope).toBe('last');
      expect((await store.session('last', wide))?.calls).toHaveLength(1);
      expect((await store.facets(wide)).tools).toEqual(['grep']);
      const series = await store.series(wide, 100_000_000_000_000);
      expect(series.points.reduce((n, p) => n + p.allow + p.block, 0)).toBe(2);
      const beyond = { from: 9_999_999_999_999, to: 99_999_999_999_999 };
      expect((await store.summary(beyond)).spans).toBe(0);
      expect(await store.hotspots(beyond)).toEqual({ rows: [], total: 0 });
      expect(await store.sessions(beyond)).toEqual({ rows: [], total: 0 });
      expect(await store.deleteBefore(999_999_999_999_999)).toBe(2);
      expect((await store.summary(wide)).spans).toBe(0);
      expect(await store.hotspots(wide)).toEqual({ rows: [], total: 0 });
    });

    it('stores spans from the first years of the epoch, a missing (zero) start included', async () => {
      // an OTLP span without start_time_unix_nano decodes to 0; clocks of fresh devices start at 0
      const times = [0n, 5_000_000_000n, 99_999_999_123_456_789n, 999_999_999_000_000_001n];
      const spans = times.map((ns, i) => {
        const span = makeToolSpan({ timeMs: 0, scope: `epoch-${i}`, action: 'nudge' });
        span.startTimeUnixNano = ns;
        span.events[0]!.timeUnixNano = ns;
        return span;
      });
      await store.insert(spans);
      for (const [i, span] of spans.entries()) {
        const [stored] = await store.trace(span.traceId);
        const ms = Number(times[i]! / 1_000_000n);
        expect(stored?.start).toBe(ms);
        expect(stored?.events.map((e) => e.time)).toEqual([ms]);
      }
      const early = { from: 0, to: 1_000_000_000_001 };
      expect((await store.summary(early)).calls).toBe(4);
      expect((await store.hotspots(early)).rows[0]).toMatchObject({ calls: 4, nudges: 4 });
      expect((await store.sessions(early)).total).toBe(4);
    });
  });
}
