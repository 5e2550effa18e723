import type { DuckDBConnection } from '@duckdb/node-api';
import { FINDING_COLUMNS, INT64_MAX } from '../schema.js';

// `loopguard_hotspot_totals` holds one row per hotspot key over everything stored: its names, its
// calls, its enforced and shadow findings (FINDING_COLUMNS) and the other hotspot columns but
// sessions. A hotspot page sorted descending by one of its
// counts reads its candidates there, and the rows of those whose calls all fall in the range (see
// prunedPage); it is folded from the hourly delta rows by compaction (read meanwhile through totalsNow)
// and refreshed for the keys that retention touched.

/**
 * The columns of a totals row after its key, aggregated from rows of the hourly rollup or of its
 * delta (named as the totals' columns). `Shared`: two names under one key (see hotspotKeySql); the
 * page then groups the rollup by names.
 */
const TOTALS_OF = `any_value("ServiceName") AS "ServiceName", any_value("ToolName") AS "ToolName",
    any_value("Signature") AS "Signature", sum("Calls")::BIGINT AS "Calls",
    ${FINDING_COLUMNS.map((c) => `coalesce(sum("${c}"), 0)::BIGINT AS "${c}"`).join(', ')},
    max("MaxStreak") AS "MaxStreak", least(sum("RepeatNs"), ${INT64_MAX})::BIGINT AS "RepeatNs",
    min("FirstMs") AS "FirstMs", max("LastMs") AS "LastMs",
    coalesce(any_value("SampleArgs") FILTER ("SampleArgs" <> ''), '') AS "SampleArgs",
    min("ServiceName") <> max("ServiceName") OR min("ToolName") <> max("ToolName")
      OR min("Signature") <> max("Signature") AS "Shared"`;

/** A totals column (but the key) as the aggregate merging a key's rows in TOUCHED. */
const MERGE: Readonly<Record<string, string>> = {
  ServiceName: 'arg_min("ServiceName", src)',
  ToolName: 'arg_min("ToolName", src)',
  Signature: 'arg_min("Signature", src)',
  ...Object.fromEntries(['Calls', ...FINDING_COLUMNS].map((c) => [c, `sum("${c}")::BIGINT`])),
  MaxStreak: 'max("MaxStreak")',
  RepeatNs: `least(sum("RepeatNs"), ${INT64_MAX})::BIGINT`,
  FirstMs: 'min("FirstMs")',
  LastMs: 'max("LastMs")',
  SampleArgs: `arg_min("SampleArgs", ("SampleArgs" = '')::INTEGER * 2 + src)`,
  Shared: `bool_or("Shared") OR min("ServiceName") <> max("ServiceName")
    OR min("ToolName") <> max("ToolName") OR min("Signature") <> max("Signature")`,
};

/** The totals' columns after the key, in order. */
const TOTALS_COLUMNS = Object.keys(MERGE);

/** Rows of the hourly delta's shape (`source`, in FROM) as rows of the totals, `src` 1. */
const deltaRows = (
  source: string,
) => `SELECT "Key", 1 AS src, "ServiceName", "ToolName", "Signature",
    "Calls", ${FINDING_COLUMNS.map((c) => `"${c}"`).join(', ')},
    "MaxStreak", "RepeatNs", "FirstMs", "LastMs", "SampleArgs", false AS "Shared"
  FROM ${source}`;

/**
 * The totals of the keys with delta rows in `source` (those matching `keys`, a condition on
 * "Key"): their totals row (`src` 0, if any) and delta rows merged as an upsert per batch merged
 * them (the names and a non-empty sample of the totals row first; shared when two names meet
 * under the key). Only these keys' rows are grouped, and only into `columns` (the string
 * aggregates cost the most).
 */
function touched(columns: readonly string[], keys: string, source: string): string {
  return `SELECT "Key", ${columns.map((c) => `${MERGE[c]} AS "${c}"`).join(', ')}
  FROM (SELECT "Key", 0 AS src, * EXCLUDE ("Key") FROM loopguard_hotspot_totals
      WHERE "Key" IN (SELECT "Key" FROM ${source} WHERE ${keys}) AND ${keys}
    UNION ALL SELECT * FROM (${deltaRows(source)}) WHERE ${keys})
  GROUP BY "Key"`;
}

/**
 * The hotspot totals as they stand, in FROM: `Key` and `columns` (default all) of the keys matching
 * `keys` (a condition on "Key"; default all), from the totals table for the keys without delta
 * rows, with their delta rows added for the others (touched: the rows compaction stores). With
 * no delta rows it reads the totals table alone; its cost grows with the delta rows matching.
 */
export function totalsNow(columns: readonly string[] = TOTALS_COLUMNS, keys = 'true'): string {
  const wanted = TOTALS_COLUMNS.filter((c) => columns.includes(c));
  const list = ['Key', ...wanted].map((c) => `"${c}"`).join(', ');
  return `(SELECT ${list} FROM loopguard_hotspot_totals ANTI JOIN loopguard_hotspots_delta USING ("Key")
      WHERE ${keys}
    UNION ALL SELECT ${list} FROM (${touched(wanted, keys, 'loopguard_hotspots_delta')})) AS totals`;
}

/** The totals columns an SQL text names (quoted), for totalsNow. */
export function totalsColumnsIn(sql: string): string[] {
  return TOTALS_COLUMNS.filter((c) => sql.includes(`"${c}"`));
}

/**
 * Folds rows of the hourly delta's shape (`source`, in FROM) into the totals: the rows totalsNow
 * reads for them.
 */
export const foldTotalsSql = (source: string) => `INSERT OR REPLACE INTO loopguard_hotspot_totals
  SELECT "Key", ${TOTALS_COLUMNS.map((c) => `"${c}"`).join(', ')}
  FROM (${touched(TOTALS_COLUMNS, 'true', source)})`;

/** The totals of the rollup rows whose key satisfies `where`. */
const fromRollup = (where: string) =>
  `SELECT "Key", ${TOTALS_OF} FROM loopguard_hotspots_hourly WHERE ${where} GROUP BY "Key"`;

/** Recomputes the totals of the keys satisfying `where` from their rollup rows (a re-decision). */
export const totalsOfKeysSql = (where: string) =>
  `INSERT OR REPLACE INTO loopguard_hotspot_totals ${fromRollup(where)}`;

/**
 * After retention removed the rollup rows up to the hour `$hour` and rebuilt that hour: recomputes
 * the totals of the keys called before the hour's end from the rollup rows left, and drops those
 * left with none.
 */
export const TOTALS_RETAIN_SQL = [
  `INSERT OR REPLACE INTO loopguard_hotspot_totals ${fromRollup(
    `"Key" IN (SELECT "Key" FROM loopguard_hotspot_totals WHERE "FirstMs" < $hour + 3600000)`,
  )}`,
  `DELETE FROM loopguard_hotspot_totals WHERE "FirstMs" < $hour + 3600000
    AND "Key" NOT IN (SELECT "Key" FROM loopguard_hotspots_hourly WHERE "Key" IS NOT NULL)`,
];

/**
 * Fills the totals of a file written before them (on open; the rollup has rows but the totals none).
 * About half a second per million spans.
 */
export async function fillHotspotTotals(c: DuckDBConnection): Promise<void> {
  const reader = await c.runAndReadAll(
    `SELECT (SELECT count(*) FROM loopguard_hotspot_totals) AS totals,
      (SELECT count(*) FROM loopguard_hotspots_hourly) AS rollup`,
  );
  const [row] = reader.getRowObjectsJS();
  if (row?.totals !== 0n || row.rollup === 0n) return;
  await c.run(`INSERT INTO loopguard_hotspot_totals ${fromRollup('"Key" IS NOT NULL')}`);
}
