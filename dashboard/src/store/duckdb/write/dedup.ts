import { type DuckDBConnection, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import type { SpanRecord } from '../../../otlp/span.js';
import { type BatchKeys, RecentSpanKeys } from './recent-keys.js';

/** The text of a span's (TraceId, SpanId): the trace id's length tells where it ends. */
const spanKey = (traceId: string, spanId: string) => `${traceId.length}:${traceId}${spanId}`;

/**
 * The spans of a batch with each (TraceId, SpanId) once, the first occurrence kept, and their
 * keys (`batchKeys` of the batch, taken as they are when no span repeats).
 */
export function uniqueSpans(spans: SpanRecord[], keys: BatchKeys): KeyedSpans {
  return keptOf({ spans, keys }, new Set());
}

/**
 * For each batch of a group (each with its spans once, as uniqueSpans leaves them), the batch
 * without the spans an earlier batch of the group holds too, or the batch itself when it has none.
 */
export function withoutEarlierRepeats(batches: readonly KeyedSpans[]): KeyedSpans[] {
  const seen = new Set<string>();
  return batches.map((b) => keptOf(b, seen));
}

/** The spans of `batch` whose ids `seen` does not hold yet (it takes them), with their keys. */
function keptOf(batch: KeyedSpans, seen: Set<string>): KeyedSpans {
  const { spans, keys } = batch;
  let kept: number[] | undefined;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    const key = spanKey(s.traceId, s.spanId);
    if (seen.has(key)) kept ??= Array.from({ length: i }, (_, j) => j);
    else {
      seen.add(key);
      kept?.push(i);
    }
  }
  return kept === undefined ? batch : pickSpans(spans, keys, kept);
}

/** The spans at `rows` of a batch, with their keys. */
function pickSpans(spans: SpanRecord[], keys: BatchKeys, rows: readonly number[]): KeyedSpans {
  const hi = new Int32Array(rows.length);
  const lo = new Int32Array(rows.length);
  const startMs = new Float64Array(rows.length);
  rows.forEach((i, j) => {
    hi[j] = keys.hi[i]!;
    lo[j] = keys.lo[i]!;
    startMs[j] = keys.startMs[i]!;
  });
  return { spans: rows.map((i) => spans[i]!), keys: { hi, lo, startMs } };
}

/** A batch's spans with their keys, as uniqueSpans returns them. */
export interface KeyedSpans {
  spans: SpanRecord[];
  keys: BatchKeys;
}

/** How far back (ms) the keys of stored spans are loaded into memory when the store opens. */
export const RECENT_KEYS_WINDOW_MS = 15 * 60_000;

/**
 * The memory of recent keys for a store opening now: the spans that start within the last
 * `RECENT_KEYS_WINDOW_MS` (or later: clocks run ahead), at most `capacity` of them, latest first.
 */
export async function loadRecentKeys(
  c: DuckDBConnection,
  capacity: number,
  nowMs: number,
): Promise<RecentSpanKeys> {
  const from = nowMs - RECENT_KEYS_WINDOW_MS;
  const reader = await c.runAndReadAll(
    `SELECT "TraceId", "SpanId", "StartMs" FROM otel_traces WHERE "StartMs" >= $from
    ORDER BY "StartMs" DESC LIMIT $limit`,
    { from: BigInt(from), limit: BigInt(capacity) },
  );
  const rows = reader.getRowsJS() as [string, string, bigint][];
  const last = rows[rows.length - 1];
  const keys = new RecentSpanKeys(
    capacity,
    rows.length >= capacity && last !== undefined ? Number(last[2]) + 1 : from,
  );
  for (let i = rows.length - 1; i >= 0; i--) {
    const [tid, sid, start] = rows[i]!;
    keys.add(tid, sid, Number(start));
  }
  return keys;
}

/**
 * The spans of `spans` whose (TraceId, SpanId) is not stored yet. Spans that `recent` surely
 * has not seen need no lookup; the others' stored copies are looked up among the spans that
 * start within their time range (a re-sent span starts when it did the first time), so the
 * scan reads only the row groups of that range.
 */
export async function unstoredSpans(
  c: DuckDBConnection,
  spans: SpanRecord[],
  recent: RecentSpanKeys,
  keys: BatchKeys,
): Promise<SpanRecord[]> {
  const suspects: SpanRecord[] = [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < spans.length; i++) {
    if (recent.surelyNewAt(keys, i)) continue;
    const s = spans[i]!;
    const ms = keys.startMs[i]!;
    suspects.push(s);
    if (ms < lo) lo = ms;
    if (ms > hi) hi = ms;
  }
  if (suspects.length === 0) return spans;
  const reader = await c.runAndReadAll(
    `SELECT t."TraceId" AS tid, t."SpanId" AS sid
    FROM otel_traces t
    JOIN (SELECT unnest($tids) AS tid, unnest($sids) AS sid) b ON t."TraceId" = b.tid AND t."SpanId" = b.sid
    WHERE t."StartMs" BETWEEN $lo AND $hi`,
    {
      tids: listValue(suspects.map((s) => s.traceId)),
      sids: listValue(suspects.map((s) => s.spanId)),
      lo: BigInt(lo),
      hi: BigInt(hi),
    },
    { tids: LIST(VARCHAR), sids: LIST(VARCHAR) },
  );
  const rows = reader.getRowObjectsJS();
  if (rows.length === 0) return spans;
  const stored = new Set(rows.map((r) => spanKey(String(r.tid), String(r.sid))));
  return spans.filter((s) => !stored.has(spanKey(s.traceId, s.spanId)));
}
