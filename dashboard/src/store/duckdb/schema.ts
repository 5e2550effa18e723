/** Width of a bucket of the hourly rollups. */
export const HOUR_MS = 3_600_000;

/**
 * The key of a hotspot (service, tool, signature) as SQL: the 128-bit md5 of the three, the first
 * two prefixed with their length in bytes so that no two triples share a text. The hotspot query
 * groups on it (DuckDB groups a number several times faster than three strings).
 */
export function hotspotKeySql(service: string, tool: string, signature: string): string {
  return `md5_number(strlen(${service}) || ':' || ${service} || strlen(${tool}) || ':' || ${tool} || ${signature})`;
}

/**
 * Spans with a signature, as a condition: exactly those with a hotspot key (SPAN_KEY). A NULL test
 * reads a validity mask where `"Signature" <> ''` compares a string per span: 43 ms against 17 ms
 * for the partial hour of a backfilled million spans, whose row groups zone maps cannot skip.
 */
export const HAS_SIGNATURE = '"HotspotKey" IS NOT NULL';

const SPAN_KEY = `CASE WHEN "Signature" <> '' THEN ${hotspotKeySql('"ServiceName"', '"ToolName"', '"Signature"')} END`;

/** DDL of the DuckDB store: otel_traces as the Collector ClickHouse exporter lays it out, plus typed columns. */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS otel_traces (
  "Timestamp" TIMESTAMP_NS NOT NULL,
  "TraceId" VARCHAR NOT NULL,
  "SpanId" VARCHAR NOT NULL,
  "ParentSpanId" VARCHAR NOT NULL,
  "TraceState" VARCHAR NOT NULL,
  "SpanName" VARCHAR NOT NULL,
  "SpanKind" VARCHAR NOT NULL,
  "ServiceName" VARCHAR NOT NULL,
  "ResourceAttributes" MAP(VARCHAR, VARCHAR),
  "ScopeName" VARCHAR NOT NULL,
  "ScopeVersion" VARCHAR NOT NULL,
  "SpanAttributes" MAP(VARCHAR, VARCHAR),
  "Duration" BIGINT NOT NULL,
  "StatusCode" VARCHAR NOT NULL,
  "StatusMessage" VARCHAR NOT NULL,
  "Events" STRUCT("Timestamp" TIMESTAMP_NS, "Name" VARCHAR, "Attributes" MAP(VARCHAR, VARCHAR))[],
  "Links" STRUCT("TraceId" VARCHAR, "SpanId" VARCHAR, "TraceState" VARCHAR, "Attributes" MAP(VARCHAR, VARCHAR))[],
  "StartMs" BIGINT NOT NULL,
  "IsCall" BOOLEAN NOT NULL,
  "ToolName" VARCHAR NOT NULL,
  "Operation" VARCHAR NOT NULL,
  "ConversationId" VARCHAR NOT NULL,
  "AgentName" VARCHAR NOT NULL,
  "ToolCallId" VARCHAR NOT NULL,
  "ToolArgs" VARCHAR NOT NULL,
  "Signature" VARCHAR NOT NULL,
  "ArgsHash" VARCHAR NOT NULL,
  "LoopScope" VARCHAR NOT NULL,
  "LoopAction" VARCHAR NOT NULL,
  "ActionRank" TINYINT NOT NULL,
  "LoopAxis" VARCHAR NOT NULL,
  "Streak" INTEGER NOT NULL,
  "LoopCount" INTEGER NOT NULL,
  "NudgeLevel" INTEGER NOT NULL,
  "Outcome" VARCHAR NOT NULL,
  "ErrorType" VARCHAR NOT NULL,
  "LiftedAttributes" INTEGER NOT NULL DEFAULT 0,
  "HotspotKey" UHUGEINT
);
CREATE TABLE IF NOT EXISTS loopguard_counters (
  "Metric" VARCHAR NOT NULL, "Service" VARCHAR NOT NULL, "Tool" VARCHAR NOT NULL,
  "Axis" VARCHAR NOT NULL, "Action" VARCHAR NOT NULL, "Reason" VARCHAR NOT NULL,
  "Value" BIGINT NOT NULL,
  PRIMARY KEY ("Metric", "Service", "Tool", "Axis", "Action", "Reason")
);
CREATE TABLE IF NOT EXISTS loopguard_hotspots_hourly (
  "Hour" BIGINT NOT NULL, "ServiceName" VARCHAR NOT NULL, "ToolName" VARCHAR NOT NULL,
  "Signature" VARCHAR NOT NULL, "LoopAction" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL,
  "MaxStreak" INTEGER NOT NULL, "RepeatNs" BIGINT NOT NULL, "FirstMs" BIGINT NOT NULL,
  "LastMs" BIGINT NOT NULL, "SampleArgs" VARCHAR NOT NULL, "Key" UHUGEINT,
  PRIMARY KEY ("Hour", "ServiceName", "ToolName", "Signature", "LoopAction")
);
CREATE TABLE IF NOT EXISTS loopguard_hotspot_totals (
  "Key" UHUGEINT PRIMARY KEY, "ServiceName" VARCHAR NOT NULL, "ToolName" VARCHAR NOT NULL,
  "Signature" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL, "Nudges" BIGINT NOT NULL,
  "Warns" BIGINT NOT NULL, "Blocks" BIGINT NOT NULL, "Halts" BIGINT NOT NULL,
  "MaxStreak" INTEGER NOT NULL, "RepeatNs" BIGINT NOT NULL,
  "FirstMs" BIGINT NOT NULL, "LastMs" BIGINT NOT NULL, "SampleArgs" VARCHAR NOT NULL,
  "Shared" BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS loopguard_sessions_hourly (
  "Hour" BIGINT NOT NULL, "LoopScope" VARCHAR NOT NULL, "ServiceName" VARCHAR NOT NULL,
  "ConversationId" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL, "MaxStreak" INTEGER NOT NULL,
  "MaxRank" TINYINT NOT NULL, "Nudges" BIGINT NOT NULL, "Warns" BIGINT NOT NULL,
  "Blocks" BIGINT NOT NULL, "StartMs" BIGINT NOT NULL, "EndMs" BIGINT NOT NULL,
  PRIMARY KEY ("Hour", "LoopScope", "ServiceName")
);
CREATE TABLE IF NOT EXISTS loopguard_halted_scopes (
  "Service" VARCHAR NOT NULL, "Scope" VARCHAR NOT NULL, PRIMARY KEY ("Service", "Scope")
);
`;

/**
 * Brings a file written by an earlier version up to SCHEMA_SQL (run after it on every open; a no-op
 * on an up-to-date file). Columns added later go at the end of their table, as SCHEMA_SQL has them.
 */
export const MIGRATE_SQL = `
-- files written before attributes were lifted out of the map (see lifted.ts)
ALTER TABLE otel_traces ADD COLUMN IF NOT EXISTS "LiftedAttributes" INTEGER DEFAULT 0;
-- files written before hotspot keys: every span with a signature and every rollup row gets its key once
ALTER TABLE otel_traces ADD COLUMN IF NOT EXISTS "HotspotKey" UHUGEINT;
UPDATE otel_traces SET "HotspotKey" = ${SPAN_KEY} WHERE "HotspotKey" IS NULL AND "Signature" <> '';
ALTER TABLE loopguard_hotspots_hourly ADD COLUMN IF NOT EXISTS "Key" UHUGEINT;
UPDATE loopguard_hotspots_hourly SET "Key" = ${hotspotKeySql('"ServiceName"', '"ToolName"', '"Signature"')}
  WHERE "Key" IS NULL;
`;

/** The largest BIGINT, as SQL: sums of durations stop there. */
export const INT64_MAX = '9223372036854775807';
