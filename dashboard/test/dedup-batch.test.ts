import { describe, expect, it } from 'vitest';
import { uniqueSpans } from '../src/store/duckdb-dedup.js';
import { batchKeys, RecentSpanKeys } from '../src/store/recent-keys.js';
import { nsToMs } from '../src/store/stage.js';
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
