import { type DuckDBConnection, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import type { SpanRecord } from './types.js';

const keyOf = (traceId: string, spanId: string) => `${traceId}\u0000${spanId}`;

/** The spans of a batch with each (TraceId, SpanId) once, the first occurrence kept. */
export function uniqueSpans(spans: SpanRecord[]): SpanRecord[] {
  const seen = new Set<string>();
  const out: SpanRecord[] = [];
  for (const s of spans) {
    const k = keyOf(s.traceId, s.spanId);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
  }
  return out.length === spans.length ? spans : out;
}

/**
 * The spans of `spans` whose (TraceId, SpanId) is not stored yet. Stored copies are looked up
 * among the spans that start within the batch's time range (a re-sent span starts when it did
 * the first time), so the scan reads only the row groups of that range.
 */
export async function unstoredSpans(
  c: DuckDBConnection,
  spans: SpanRecord[],
): Promise<SpanRecord[]> {
  if (spans.length === 0) return spans;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of spans) {
    const ms = Number(s.startTimeUnixNano / 1_000_000n);
    if (ms < lo) lo = ms;
    if (ms > hi) hi = ms;
  }
  const reader = await c.runAndReadAll(
    `SELECT t."TraceId" AS tid, t."SpanId" AS sid
    FROM otel_traces t
    JOIN (SELECT unnest($tids) AS tid, unnest($sids) AS sid) b ON t."TraceId" = b.tid AND t."SpanId" = b.sid
    WHERE t."StartMs" BETWEEN $lo AND $hi`,
    {
      tids: listValue(spans.map((s) => s.traceId)),
      sids: listValue(spans.map((s) => s.spanId)),
      lo: BigInt(lo),
      hi: BigInt(hi),
    },
    { tids: LIST(VARCHAR), sids: LIST(VARCHAR) },
  );
  const rows = reader.getRowObjectsJS();
  if (rows.length === 0) return spans;
  const stored = new Set(rows.map((r) => keyOf(String(r.tid), String(r.sid))));
  return spans.filter((s) => !stored.has(keyOf(s.traceId, s.spanId)));
}
