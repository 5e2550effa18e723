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

/** Whether a span was decided in shadow mode (`loopguard.shadow`, kept in the attribute map). */
export const SHADOW_SQL = `coalesce("SpanAttributes"['loopguard.shadow'] = 'true', false)`;

/** The finding columns of the hotspot rollups: enforced findings per action, then shadow ones. */
export const FINDING_COLUMNS = [
  'Nudges',
  'Warns',
  'Blocks',
  'Halts',
  'ShadowNudges',
  'ShadowWarns',
  'ShadowBlocks',
  'ShadowHalts',
] as const;

/** The action a finding column counts and whether it counts shadow findings. */
export function findingColumn(column: (typeof FINDING_COLUMNS)[number]): {
  action: 'nudge' | 'warn' | 'block' | 'halt';
  shadow: boolean;
} {
  const shadow = column.startsWith('Shadow');
  const plural = (shadow ? column.slice(6) : column).toLowerCase();
  return { action: plural.slice(0, -1) as 'nudge' | 'warn' | 'block' | 'halt', shadow };
}

/** DDL of the finding columns (of the hotspot rollups and their delta). */
export const FINDING_COLUMNS_DDL = FINDING_COLUMNS.map((c) => `"${c}" BIGINT NOT NULL`).join(', ');

/**
 * DDL of the shadow columns of the session rollup and its delta (its MaxRank, Nudges, Warns and Blocks are enforced):
 * the strongest shadow action's rank and the shadow findings.
 */
export const SESSION_SHADOW_DDL = `"ShadowRank" TINYINT NOT NULL, ${FINDING_COLUMNS.slice(4)
  .map((c) => `"${c}" BIGINT NOT NULL`)
  .join(', ')}`;

const FINDING_EVENTS = `['loopguard.nudge', 'loopguard.warn', 'loopguard.block', 'loopguard.halt']`;

/**
 * A span's findings of one action: its loopguard.<action> events, or when it has no finding event
 * at all, 1 when its loopguard.action is that action (as the decisions counter counts them).
 */
export function findingsSql(action: string): string {
  return `CASE WHEN len(list_filter("Events", e -> list_contains(${FINDING_EVENTS}, e."Name"))) > 0
    THEN len(list_filter("Events", e -> e."Name" = 'loopguard.${action}'))
    ELSE ("LoopAction" = '${action}')::INTEGER END`;
}

/** The column of SPANS_SQL holding a span's findings of one action. */
const findingsColumn = (action: string) => `"F${action[0]?.toUpperCase()}${action.slice(1)}"`;

/**
 * otel_traces as a FROM item, with each span's shadow flag ("FShadow") and findings per action
 * ("FNudge", "FWarn", "FBlock", "FHalt") computed once per span: summed in 8 aggregates with the
 * expressions inline, the event lists were filtered 16 times per span.
 */
export const SPANS_SQL = `(SELECT *, ${SHADOW_SQL} AS "FShadow", ${[
  'nudge',
  'warn',
  'block',
  'halt',
]
  .map((a) => `${findingsSql(a)} AS ${findingsColumn(a)}`)
  .join(', ')} FROM otel_traces) AS otel_traces`;

/**
 * The sum of the spans' findings of one action over the rows aggregated (of SPANS_SQL), enforced
 * ones or those decided in shadow mode, as a BIGINT (0 when none).
 */
export function sumFindingsSql(action: string, shadow: boolean): string {
  return `coalesce(sum(${findingsColumn(action)}) FILTER (${shadow ? '' : 'NOT '}"FShadow"), 0)::BIGINT`;
}

/** Every finding column (FINDING_COLUMNS) as its sum over the spans aggregated (of SPANS_SQL), in order. */
export const SUM_FINDING_COLUMNS_SQL = FINDING_COLUMNS.map((c) => {
  const { action, shadow } = findingColumn(c);
  return sumFindingsSql(action, shadow);
}).join(', ');

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
  ${FINDING_COLUMNS_DDL},
  PRIMARY KEY ("Hour", "ServiceName", "ToolName", "Signature", "LoopAction")
);
CREATE TABLE IF NOT EXISTS loopguard_hotspot_totals (
  "Key" UHUGEINT PRIMARY KEY, "ServiceName" VARCHAR NOT NULL, "ToolName" VARCHAR NOT NULL,
  "Signature" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL, ${FINDING_COLUMNS_DDL},
  "MaxStreak" INTEGER NOT NULL, "RepeatNs" BIGINT NOT NULL,
  "FirstMs" BIGINT NOT NULL, "LastMs" BIGINT NOT NULL, "SampleArgs" VARCHAR NOT NULL,
  "Shared" BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS loopguard_sessions_hourly (
  "Hour" BIGINT NOT NULL, "LoopScope" VARCHAR NOT NULL, "ServiceName" VARCHAR NOT NULL,
  "ConversationId" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL, "MaxStreak" INTEGER NOT NULL,
  "MaxRank" TINYINT NOT NULL, "Nudges" BIGINT NOT NULL, "Warns" BIGINT NOT NULL,
  "Blocks" BIGINT NOT NULL, "StartMs" BIGINT NOT NULL, "EndMs" BIGINT NOT NULL,
  ${SESSION_SHADOW_DDL},
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
