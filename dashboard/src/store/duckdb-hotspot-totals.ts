import type { DuckDBConnection } from '@duckdb/node-api';
import { hotspotKeySql, objectSize } from './duckdb-schema.js';
import type { LoopAction } from './types.js';

/**
 * `loopguard_hotspot_totals` holds one row per hotspot key over everything stored: its calls in all
 * and per action, and the first and last call's time. The hotspot page sorted by calls reads its
 * candidates there (see prunedPage); it is upserted from the staged hourly rollup rows on insert and
 * refreshed for the keys that retention touched.
 */
export const ACTION_COLUMNS: Readonly<Record<LoopAction, string>> = {
  allow: 'Allows',
  nudge: 'Nudges',
  warn: 'Warns',
  block: 'Blocks',
  halt: 'Halts',
};

/** `sum(calls)` in all and per action (a sender's own action text counts in all only). */
function perAction(calls: string, action: string): string {
  const each = Object.entries(ACTION_COLUMNS).map(
    ([name]) => `coalesce(sum(${calls}) FILTER (${action} = '${name}'), 0)::BIGINT`,
  );
  return [`sum(${calls})::BIGINT`, ...each].join(', ');
}

const MERGE = `ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    ${Object.values(ACTION_COLUMNS)
      .map((c) => `"${c}" = "${c}" + excluded."${c}"`)
      .join(', ')},
    "FirstMs" = least("FirstMs", excluded."FirstMs"), "LastMs" = greatest("LastMs", excluded."LastMs")`;

/** Upserts the totals of a staged rollup file (NDJSON of RollupRow, as rollupUpsertSql reads it). */
export function totalsUpsertSql(path: string, longestLine = 0): string {
  const file = path.replaceAll("'", "''");
  return `INSERT INTO loopguard_hotspot_totals
  SELECT ${hotspotKeySql('service', 'tool', 'signature')} AS k, any_value(service), any_value(tool),
    ${perAction('calls', 'action')}, min(firstMs), max(lastMs)
  FROM read_json('${file}', format = 'newline_delimited', maximum_object_size = ${objectSize(longestLine)},
    columns = {service: 'VARCHAR', tool: 'VARCHAR', signature: 'VARCHAR', action: 'VARCHAR',
    calls: 'BIGINT', firstMs: 'BIGINT', lastMs: 'BIGINT'})
  GROUP BY k
  ${MERGE}`;
}

/** The totals of the rollup rows whose key satisfies `where`. */
const fromRollup = (
  where: string,
) => `SELECT "Key", any_value("ServiceName"), any_value("ToolName"),
    ${perAction('"Calls"', '"LoopAction"')}, min("FirstMs"), max("LastMs")
  FROM loopguard_hotspots_hourly WHERE ${where} GROUP BY "Key"`;

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
