import type { SpanRecord } from '../../otlp/span.js';
import { clampTimeNs, toNumber } from '../common/index.js';
import type { SqlExecutor } from './executor.js';
import { DECISIONS, deriveSql, overlaidSpans } from './schema.js';

// A re-decided span (the dashboard's detection, after a late call, or its first decision of a
// span a Collector wrote) gets a new version in loopguard_decisions; its otel_traces row stays as
// written. No materialized view fires: the counters keep what they counted. The calls table and
// the rollups of every minute holding such a span are then rebuilt from otel_traces with the
// decisions in place (`refill`), so the lists read the new decisions.

const KEY = "concat(TraceId, ':', SpanId)";

/** JSON text of a map from span key to a value already written as JSON. */
function jsonMap(entries: readonly [string, string][]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/**
 * Replaces the decision of the stored spans among `spans` (same TraceId and SpanId; the others
 * are skipped) with these copies' attributes and events, written to loopguard_decisions as
 * `version` (newer than any earlier one); `refill` rebuilds one minute (epoch seconds) of the
 * calls table and rollups. Returns the spans replaced.
 */
export async function redecideSpans(
  exec: SqlExecutor,
  spans: readonly SpanRecord[],
  version: number,
  refill: (minuteS: number) => Promise<void>,
): Promise<number> {
  const byKey = new Map<string, SpanRecord>();
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of spans) {
    byKey.set(`${s.traceId}:${s.spanId}`, s);
    const ms = Number(clampTimeNs(s.startTimeUnixNano) / 1_000_000n);
    lo = Math.min(lo, ms);
    hi = Math.max(hi, ms);
  }
  if (byKey.size === 0) return 0;
  const keys = JSON.stringify([...byKey.keys()]);
  const range = `Timestamp >= fromUnixTimestamp64Milli({lo:Int64})
      AND Timestamp < fromUnixTimestamp64Milli({hi:Int64})`;
  const inKeys = `has(JSONExtract({keys:String}, 'Array(String)'), ${KEY})`;
  const rows = await exec.query(
    `SELECT DISTINCT ${KEY} AS k, intDiv(toUnixTimestamp64Milli(Timestamp), 60000) * 60 AS m
    FROM otel_traces WHERE ${range} AND ${inKeys}`,
    { lo, hi: hi + 1, keys },
  );
  const stored = [...new Set(rows.map((r) => String(r.k)))].filter((k) => byKey.has(k));
  if (stored.length === 0) return 0;
  const kept = stored.map((k) => [k, byKey.get(k)!] as const);
  const params = {
    keys: JSON.stringify(stored),
    attrs: jsonMap(kept.map(([k, s]) => [k, JSON.stringify(s.attributes)])),
    times: jsonMap(
      kept.map(([k, s]) => [k, `[${s.events.map((e) => clampTimeNs(e.timeUnixNano)).join(',')}]`]),
    ),
    names: jsonMap(kept.map(([k, s]) => [k, JSON.stringify(s.events.map((e) => e.name))])),
    evattrs: jsonMap(kept.map(([k, s]) => [k, JSON.stringify(s.events.map((e) => e.attributes))])),
  };
  const at = (param: string, type: string) =>
    `JSONExtract({${param}:String}, 'Map(String, ${type})')[${KEY}]`;
  // the span's start from its stored row: every version of a span has the same
  await exec.command(
    `INSERT INTO ${DECISIONS} (Timestamp, TraceId, SpanId, SpanAttributes, \`Events.Timestamp\`,
      \`Events.Name\`, \`Events.Attributes\`, Version) SETTINGS insert_deduplicate = 0
    SELECT Timestamp, TraceId, SpanId,
      CAST(${at('attrs', 'Map(String, String)')} AS Map(LowCardinality(String), String)),
      arrayMap(x -> fromUnixTimestamp64Nano(x), ${at('times', 'Array(Int64)')}),
      CAST(${at('names', 'Array(String)')} AS Array(LowCardinality(String))),
      CAST(${at('evattrs', 'Array(Map(String, String))')}
        AS Array(Map(LowCardinality(String), String))),
      {version:UInt64}
    FROM otel_traces WHERE ${range} AND ${inKeys}
    LIMIT 1 BY TraceId, SpanId`,
    { ...params, lo, hi: hi + 1, version },
  );
  // a re-decided block or halt halts its scope, as at insert (counters.sql)
  await exec.command(
    `INSERT INTO loopguard_halted_scopes SETTINGS insert_deduplicate = 0
    SELECT ServiceName AS Service, LoopScope AS Scope FROM (${deriveSql(overlaidSpans([range]))})
    WHERE IsCall AND ActionRank >= 3 AND LoopScope != '' AND NOT Shadow AND ${inKeys}`,
    { keys: params.keys, lo, hi: hi + 1 },
  );
  const minutes = new Set(rows.filter((r) => byKey.has(String(r.k))).map((r) => toNumber(r.m)));
  for (const m of [...minutes].sort((a, b) => a - b)) await refill(m);
  return stored.length;
}
