import type { DuckDBConnection } from '@duckdb/node-api';
import { hotspotKeySql, INT64_MAX, objectSize } from './duckdb-schema.js';
import type { LoopAction } from './types.js';

// `loopguard_hotspot_totals` holds one row per hotspot key over everything stored: its names, its
// calls and the other hotspot columns but sessions. A hotspot page sorted descending by one of its
// counts reads its candidates there, and the rows of those whose calls all fall in the range (see
// prunedPage); it is upserted from the staged hourly rollup rows on insert and refreshed for the
// keys that retention touched.

/** The totals' column counting the calls given each action (allow: in calls only). */
const ACTION_COLUMNS: Readonly<Record<Exclude<LoopAction, 'allow'>, string>> = {
  nudge: 'Nudges',
  warn: 'Warns',
  block: 'Blocks',
  halt: 'Halts',
};

/** Names of the rollup columns (or of a staged rollup file's fields) that totalsOf reads. */
interface RollupColumns {
  service: string;
  tool: string;
  signature: string;
  action: string;
  calls: string;
  streak: string;
  repeat: string;
  first: string;
  last: string;
  args: string;
}

/** The columns of a totals row after its key, aggregated from rollup rows. */
function totalsOf(c: RollupColumns): string {
  const perAction = Object.keys(ACTION_COLUMNS).map(
    (name) => `coalesce(sum(${c.calls}) FILTER (${c.action} = '${name}'), 0)::BIGINT`,
  );
  // two names under one key (see hotspotKeySql): the page then takes the rollup's grouping by names
  const shared = [c.service, c.tool, c.signature].map((n) => `min(${n}) <> max(${n})`).join(' OR ');
  return `any_value(${c.service}), any_value(${c.tool}), any_value(${c.signature}),
    sum(${c.calls})::BIGINT, ${perAction.join(', ')}, max(${c.streak}),
    least(sum(${c.repeat}), ${INT64_MAX})::BIGINT, min(${c.first}), max(${c.last}),
    coalesce(any_value(${c.args}) FILTER (${c.args} <> ''), ''), ${shared}`;
}

const MERGE = `ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    ${Object.values(ACTION_COLUMNS)
      .map((c) => `"${c}" = "${c}" + excluded."${c}"`)
      .join(', ')},
    "MaxStreak" = greatest("MaxStreak", excluded."MaxStreak"),
    "RepeatNs" = least("RepeatNs"::HUGEINT + excluded."RepeatNs", ${INT64_MAX}),
    "FirstMs" = least("FirstMs", excluded."FirstMs"), "LastMs" = greatest("LastMs", excluded."LastMs"),
    "SampleArgs" = CASE WHEN "SampleArgs" = '' THEN excluded."SampleArgs" ELSE "SampleArgs" END,
    "Shared" = "Shared" OR excluded."Shared" OR "ServiceName" <> excluded."ServiceName"
      OR "ToolName" <> excluded."ToolName" OR "Signature" <> excluded."Signature"`;

/** Upserts the totals of a staged rollup file (NDJSON of RollupRow, as rollupUpsertSql reads it). */
export function totalsUpsertSql(path: string, longestLine = 0): string {
  const file = path.replaceAll("'", "''");
  return `INSERT INTO loopguard_hotspot_totals
  SELECT ${hotspotKeySql('service', 'tool', 'signature')} AS k, ${totalsOf({
    service: 'service',
    tool: 'tool',
    signature: 'signature',
    action: 'action',
    calls: 'calls',
    streak: 'maxStreak',
    repeat: 'repeatNs',
    first: 'firstMs',
    last: 'lastMs',
    args: 'sampleArgs',
  })}
  FROM read_json('${file}', format = 'newline_delimited', maximum_object_size = ${objectSize(longestLine)},
    columns = {service: 'VARCHAR', tool: 'VARCHAR', signature: 'VARCHAR', action: 'VARCHAR',
    calls: 'BIGINT', maxStreak: 'INTEGER', repeatNs: 'BIGINT', firstMs: 'BIGINT', lastMs: 'BIGINT',
    sampleArgs: 'VARCHAR'})
  GROUP BY k
  ${MERGE}`;
}

/** The totals of the rollup rows whose key satisfies `where`. */
const fromRollup = (where: string) => `SELECT "Key", ${totalsOf({
  service: '"ServiceName"',
  tool: '"ToolName"',
  signature: '"Signature"',
  action: '"LoopAction"',
  calls: '"Calls"',
  streak: '"MaxStreak"',
  repeat: '"RepeatNs"',
  first: '"FirstMs"',
  last: '"LastMs"',
  args: '"SampleArgs"',
})}
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
