import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../src/api/types.js';
import { createApp } from '../src/server/app.js';
import type { Store } from '../src/store/index.js';
import { JSON_CT, useIngestApp } from './helpers/ingest-app.js';
import { request, type SpanOptions, span } from './helpers/otlp-json.js';

// Values that are valid OTLP but were once refused by the store with a 503 on every retry, so the
// exporter retried forever and the good spans of the request were never stored.

const lg = useIngestApp('edge');
const { post } = lg;
async function trace(traceId: string): Promise<TraceSpan[]> {
  return (await (await lg.app.request(`/api/traces/${traceId}`)).json()) as TraceSpan[];
}

async function rejectedCount(reason: string): Promise<number> {
  const list = (await lg.store.counters()).rejectedSpans;
  return list.find((r) => r.reason === reason)?.value ?? 0;
}

const MAX_MS = 9_223_372_036_854; // 2262-04-11T23:47:16.854Z, the end of int64 nanoseconds
const YEAR_2300_NS = '10413792000000000000';

describe('values beyond the store column ranges', () => {
  const cases: [string, SpanOptions][] = [
    ['start in 2300', { startNs: YEAR_2300_NS, endNs: '10413792000000000001' }],
    ['start at 2^64', { startNs: '18446744073709551616', endNs: '18446744073709551617' }],
    ['duration over int64', { startNs: '1', endNs: '18446744073709551615' }],
    ['streak over int32', { attrs: { 'loopguard.streak': '3000000000' } }],
    ['count under int32', { attrs: { 'loopguard.count': '-3000000000' } }],
    ['nudge level over int32', { attrs: { 'loopguard.nudge.level': '99999999999' } }],
    ['event in 2300', { events: [{ timeUnixNano: YEAR_2300_NS, name: 'e' }] }],
  ];
  for (const [label, options] of cases) {
    it(`${label}: stored with the rest of the request; rejections counted once per 200`, async () => {
      const good = span();
      const bad = span({
        ...options,
        attrs: { 'loopguard.signature': 'grep:1', ...options.attrs },
      });
      const badId = span({ traceId: 'abcd' });
      const before = await rejectedCount('invalid_trace_id');
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await post(JSON.stringify(request([good, bad, badId])), JSON_CT);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          partialSuccess: {
            rejectedSpans: '1',
            errorMessage: '1 span(s) rejected: invalid_trace_id',
          },
        });
      }
      expect(await rejectedCount('invalid_trace_id')).toBe(before + 2);
      // sent twice (the exporter retries), stored once
      expect(await trace(good.traceId)).toHaveLength(1);
      const [stored] = await trace(bad.traceId);
      for (const [key, value] of Object.entries(options.attrs ?? {}))
        expect(stored!.attributes[key]).toBe(value);
      if (options.startNs && BigInt(options.startNs) > 10n ** 19n)
        expect(stored!.start).toBe(MAX_MS);
      if (options.events) expect(stored!.events[0]!.time).toBe(MAX_MS);
    });
  }
});

describe('a failed insert', () => {
  it('answers a generic 503, reports the error once and counts no rejected span', async () => {
    const reported: unknown[] = [];
    // The real store, failing inside its own transaction: a lone surrogate (which the decoders
    // never pass on) makes DuckDB's read_json refuse the batch, so the rejection count sent with
    // it must be rolled back, and the good span of the request must not be stored either.
    const failing: Store = {
      ...lg.store,
      insert: async (spans, rejected) => {
        const bad = { ...spans[0]!, spanId: 'f'.repeat(16), attributes: { note: 'a\ud800b' } };
        return lg.store.insert([...spans, bad], rejected);
      },
    };
    const app = createApp({ store: failing, onInternalError: (e) => reported.push(e) });
    const before = await rejectedCount('invalid_trace_id');
    const ingested = (await lg.store.counters()).ingestedSpans;
    const good = span();
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await post(
        JSON.stringify(request([good, span({ traceId: 'ab' })])),
        JSON_CT,
        app,
      );
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      const body = (await res.json()) as { message: string };
      expect(body.message).toBe('store unavailable, retry later');
    }
    expect(reported).toHaveLength(2);
    // the store's own error (naming its staging file) is reported, never sent to the client
    expect(String(reported[0])).toContain('.stage');
    expect(await rejectedCount('invalid_trace_id')).toBe(before);
    expect((await lg.store.counters()).ingestedSpans).toBe(ingested);
    expect(await trace(good.traceId)).toEqual([]);
  });
});

describe('values longer than read_json takes by default (16 MiB)', () => {
  // every staged file is read back by DuckDB, the rollups and counters as well as the spans
  const long = (c: string) => c.repeat(17 * 2 ** 20);
  const call = (attrs: Record<string, string>) =>
    span({
      attrs: {
        'gen_ai.operation.name': 'execute_tool',
        'loopguard.signature': 'grep:0011223344556677',
        'loopguard.action': 'block',
        ...attrs,
      },
    });
  const cases: [string, Record<string, string>][] = [
    ['arguments (hotspot rollup)', { 'gen_ai.tool.call.arguments': long('a') }],
    ['scope (session rollup, halted scopes)', { 'loopguard.scope': long('s') }],
    ['tool name (counters)', { 'gen_ai.tool.name': long('t') }],
  ];
  for (const [label, attrs] of cases) {
    it(`a long ${label}: stored, not refused with a 503 on every retry`, async () => {
      const s = call(attrs);
      const res = await post(JSON.stringify(request([s])), JSON_CT);
      expect(res.status, (await res.clone().text()).slice(0, 300)).toBe(200);
      const [stored] = await trace(s.traceId);
      for (const [key, value] of Object.entries(attrs))
        expect(stored!.attributes[key]?.length).toBe(value.length);
    });
  }
});
