import { FINDING_COLUMNS_DDL, SESSION_SHADOW_DDL } from '../schema.js';

// Append-only delta tables: the insert transaction adds its rollup and counter rows to these with
// plain INSERTs (no primary key, no ON CONFLICT: an upsert cost 3-7 ms per statement even for a
// few rows), readers add the deltas to the main tables (every reader aggregates), and compaction
// (compaction.ts) folds them into the main tables in one transaction, so an answer is the
// same whether a row is compacted or not. The hotspot totals have no delta of their own: a key's
// delta is the aggregate of its hourly delta rows (see totalsNow).

/** DDL of the delta tables: the columns of their main tables, without a primary key. */
export const DELTA_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS loopguard_hotspots_delta (
  "Hour" BIGINT NOT NULL, "ServiceName" VARCHAR NOT NULL, "ToolName" VARCHAR NOT NULL,
  "Signature" VARCHAR NOT NULL, "LoopAction" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL,
  "MaxStreak" INTEGER NOT NULL, "RepeatNs" BIGINT NOT NULL, "FirstMs" BIGINT NOT NULL,
  "LastMs" BIGINT NOT NULL, "SampleArgs" VARCHAR NOT NULL, "Key" UHUGEINT NOT NULL,
  ${FINDING_COLUMNS_DDL}
);
CREATE TABLE IF NOT EXISTS loopguard_sessions_delta (
  "Hour" BIGINT NOT NULL, "LoopScope" VARCHAR NOT NULL, "ServiceName" VARCHAR NOT NULL,
  "ConversationId" VARCHAR NOT NULL, "Calls" BIGINT NOT NULL, "MaxStreak" INTEGER NOT NULL,
  "MaxRank" TINYINT NOT NULL, "Nudges" BIGINT NOT NULL, "Warns" BIGINT NOT NULL,
  "Blocks" BIGINT NOT NULL, "StartMs" BIGINT NOT NULL, "EndMs" BIGINT NOT NULL,
  ${SESSION_SHADOW_DDL}
);
CREATE TABLE IF NOT EXISTS loopguard_counters_delta (
  "Metric" VARCHAR NOT NULL, "Service" VARCHAR NOT NULL, "Tool" VARCHAR NOT NULL,
  "Axis" VARCHAR NOT NULL, "Action" VARCHAR NOT NULL, "Reason" VARCHAR NOT NULL,
  "Value" BIGINT NOT NULL
);
`;

/** The delta tables, each beside its main table. */
export const DELTA_TABLES = {
  loopguard_hotspots_hourly: 'loopguard_hotspots_delta',
  loopguard_sessions_hourly: 'loopguard_sessions_delta',
  loopguard_counters: 'loopguard_counters_delta',
} as const;

/** How many delta rows wait for compaction, as one row with `n`. */
export const DELTA_ROWS_SQL = `SELECT ${Object.values(DELTA_TABLES)
  .map((t) => `(SELECT count(*) FROM ${t})`)
  .join(' + ')} AS n`;

/**
 * The rows of a main rollup table and of its delta that satisfy `where` (the same text for both),
 * as `select` of each: the caller aggregates them.
 */
export function withDelta(select: string, table: keyof typeof DELTA_TABLES, where: string): string {
  return `${select} FROM ${table} ${where}
      UNION ALL ${select} FROM ${DELTA_TABLES[table]} ${where}`;
}

/** The counters with their deltas added: one row per counter, `Value` summed. */
export const COUNTERS_NOW_SQL = `SELECT "Metric", "Service", "Tool", "Axis", "Action", "Reason",
    sum("Value")::BIGINT AS "Value"
  FROM (${withDelta('SELECT *', 'loopguard_counters', '')})
  GROUP BY ALL ORDER BY ALL`;
