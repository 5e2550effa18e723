import { describe, expect, it } from 'vitest';
import { nsToMs } from '../src/store/common/index.js';
import { uniqueSpans, withoutEarlierRepeats } from '../src/store/duckdb/write/dedup.js';
import { batchKeys, RecentSpanKeys } from '../src/store/duckdb/write/recent-keys.js';
import { hexId, makeToolSpan } from './span-fixtures.js';

describe('a batch’s duplicate check', () => {
  it('keeps the first span of each (TraceId, SpanId), span ids shared across traces included', () => {
    const a = makeToolSpan({ traceId: 'a'.repeat(32), spanId: '1'.repeat(16) });
    const b = makeToolSpan({ traceId: 'b'.repeat(32), spanId: '1'.repeat(16) });
    const c = makeToolSpan({ traceId: 'c'.repeat(32), spanId: '1'.repeat(16) });
    const d = makeToolSpan();
    const again = (s: typeof a) => ({ ...s, name: 'the re-sent copy' });
    const batch = [a, b, d, again(a), c, again(b), again(c), again(d), b];
    const unique = uniqueSpans(batch, batchKeys(batch));
    expect(unique.spans).toEqual([a, b, d, c]);
    expect(unique.keys).toEqual(batchKeys([a, b, d, c]));
    const distinct = [a, b, c, d];
    const keys = batchKeys(distinct);
    expect(uniqueSpans(distinct, keys)).toEqual({ spans: distinct, keys });
    expect(uniqueSpans(distinct, keys).spans).toBe(distinct);
    expect(uniqueSpans([], batchKeys([])).spans).toEqual([]);
    // many spans, every tenth sent twice: the first of each kept, in order
    const many = Array.from({ length: 5000 }, () => makeToolSpan());
    const resent = many.flatMap((s, i) => (i % 10 === 0 ? [s, again(s)] : [s]));
    expect(uniqueSpans(resent, batchKeys(resent)).spans).toEqual(many);
  });

  it('drops from each batch of a group the spans an earlier batch holds', () => {
    const spans = Array.from({ length: 3000 }, () => makeToolSpan());
    const copy = (s: (typeof spans)[number]) => ({ ...s, name: 'the re-sent copy' });
    const keyed = (list: typeof spans) => ({ spans: list, keys: batchKeys(list) });
    const first = keyed(spans.slice(0, 1000));
    const second = keyed(spans.slice(1000, 2000));
    // the third re-sends every fifth span of the first two (as copies) among spans of its own
    const third = keyed([
      ...spans.slice(2000, 2500),
      ...spans
        .slice(0, 2000)
        .filter((_, i) => i % 5 === 0)
        .map(copy),
      ...spans.slice(2500),
    ]);
    const [a, b, c] = withoutEarlierRepeats([first, second, third]);
    expect(a).toBe(first);
    expect(b).toBe(second);
    expect(c!.spans).toEqual([...spans.slice(2000, 2500), ...spans.slice(2500)]);
    expect(c!.keys).toEqual(batchKeys(c!.spans));
    // the same span ids in other traces are other spans
    const elsewhere = keyed(spans.slice(0, 10).map((s) => ({ ...s, traceId: 'f'.repeat(32) })));
    expect(withoutEarlierRepeats([first, elsewhere])[1]).toBe(elsewhere);
    expect(withoutEarlierRepeats([first])[0]).toBe(first);
  });

  it('hashes a batch once: the batch methods agree with the ones taking ids', () => {
    const spans = Array.from({ length: 300 }, (_, i) =>
      makeToolSpan({ traceId: hexId(16), spanId: hexId(8), timeMs: 1_000 + i }),
    );
    const keys = batchKeys(spans);
    const byIds = new RecentSpanKeys(64, 1_100);
    const byBatch = new RecentSpanKeys(64, 1_100);
    spans.forEach((s, i) => {
      const ms = nsToMs(s.startTimeUnixNano);
      expect(keys.startMs[i]).toBe(ms);
      expect(byBatch.surelyNewAt(keys, i)).toBe(byIds.surelyNew(s.traceId, s.spanId, ms));
      if (i % 3 !== 0) {
        byIds.add(s.traceId, s.spanId, ms);
        byBatch.addAt(keys, i);
      }
    });
    spans.forEach((s, i) => {
      const ms = nsToMs(s.startTimeUnixNano);
      expect(byBatch.surelyNewAt(keys, i)).toBe(byIds.surelyNew(s.traceId, s.spanId, ms));
      expect(byBatch.surelyNew(s.traceId, s.spanId, ms)).toBe(
        byIds.surelyNew(s.traceId, s.spanId, ms),
      );
    });
    // the last 64 added are remembered
    expect(byBatch.surelyNewAt(keys, 299)).toBe(false);
  });
});
