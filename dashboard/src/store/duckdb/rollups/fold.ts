import { FINDING_COLUMNS, INT64_MAX } from '../schema.js';

/** Sums of `columns` (of the source) in order, for a fold's SELECT. */
const sums = (columns: readonly string[]) => columns.map((c) => `sum("${c}")::BIGINT`).join(', ');

/** `column = column + excluded.column` for each of `columns`, for a fold's upsert. */
const added = (columns: readonly string[]) =>
  columns.map((c) => `"${c}" = "${c}" + excluded."${c}"`).join(', ');

const SHADOW_FINDINGS = FINDING_COLUMNS.slice(4);

// Folding rows of a delta table's shape into the main tables: grouped by the main table's key and
// upserted with the merge of each column. Compaction folds the delta tables; an insert transaction
// of a large group folds its staged rows directly (see GroupWriter).

/** Folds rows of the hourly delta's shape (`source`, in FROM) into loopguard_hotspots_hourly. */
export const foldHourlySql = (source: string) => `INSERT INTO loopguard_hotspots_hourly
  SELECT "Hour", "ServiceName", "ToolName", "Signature", "LoopAction", sum("Calls")::BIGINT,
    max("MaxStreak"), least(sum("RepeatNs"), ${INT64_MAX})::BIGINT, min("FirstMs"), max("LastMs"),
    coalesce(any_value("SampleArgs") FILTER ("SampleArgs" <> ''), ''), any_value("Key"),
    ${sums(FINDING_COLUMNS)}
  FROM ${source} GROUP BY "Hour", "ServiceName", "ToolName", "Signature", "LoopAction"
  ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    "MaxStreak" = greatest("MaxStreak", excluded."MaxStreak"),
    "RepeatNs" = least("RepeatNs"::HUGEINT + excluded."RepeatNs", ${INT64_MAX}),
    "FirstMs" = least("FirstMs", excluded."FirstMs"), "LastMs" = greatest("LastMs", excluded."LastMs"),
    "SampleArgs" = CASE WHEN "SampleArgs" = '' THEN excluded."SampleArgs" ELSE "SampleArgs" END,
    ${added(FINDING_COLUMNS)}`;

/** Folds rows of the session delta's shape (`source`) into loopguard_sessions_hourly. */
export const foldSessionsSql = (source: string) => `INSERT INTO loopguard_sessions_hourly
  SELECT "Hour", "LoopScope", "ServiceName", max("ConversationId"), sum("Calls")::BIGINT,
    max("MaxStreak"), max("MaxRank"), sum("Nudges")::BIGINT, sum("Warns")::BIGINT,
    sum("Blocks")::BIGINT, min("StartMs"), max("EndMs"), max("ShadowRank"), ${sums(SHADOW_FINDINGS)}
  FROM ${source} GROUP BY "Hour", "LoopScope", "ServiceName"
  ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    "ConversationId" = greatest("ConversationId", excluded."ConversationId"),
    "MaxStreak" = greatest("MaxStreak", excluded."MaxStreak"),
    "MaxRank" = greatest("MaxRank", excluded."MaxRank"), "Nudges" = "Nudges" + excluded."Nudges",
    "Warns" = "Warns" + excluded."Warns", "Blocks" = "Blocks" + excluded."Blocks",
    "StartMs" = least("StartMs", excluded."StartMs"), "EndMs" = greatest("EndMs", excluded."EndMs"),
    "ShadowRank" = greatest("ShadowRank", excluded."ShadowRank"), ${added(SHADOW_FINDINGS)}`;

/** Folds rows of the counter delta's shape (`source`) into loopguard_counters. */
export const foldCountersSql = (source: string) => `INSERT INTO loopguard_counters
  SELECT "Metric", "Service", "Tool", "Axis", "Action", "Reason", sum("Value")::BIGINT
  FROM ${source} GROUP BY ALL
  ON CONFLICT DO UPDATE SET "Value" = "Value" + excluded."Value"`;
