import type { DuckDBConnection } from '@duckdb/node-api';
import { toNumber } from '../../common/index.js';
import {
  FINDING_COLUMNS,
  findingColumn,
  HAS_SIGNATURE,
  HOUR_MS,
  INT64_MAX,
  SCHEMA_SQL,
  SPANS_SQL,
  SUM_FINDING_COLUMNS_SQL,
  sumFindingsSql,
} from '../schema.js';
import { DELTA_SCHEMA_SQL, DELTA_TABLES } from './deltas.js';
import { foldCountersSql } from './fold.js';
import { fillHotspotTotals } from './totals.js';

// The hourly rollups are a function of the spans stored: retention rebuilds the hour it cuts, and
// a file whose rollups lack a column of this version has them rebuilt whole on open.

/** A span's hour (the rollups' `Hour`). */
const HOUR = `"StartMs" // ${HOUR_MS} * ${HOUR_MS}`;

/** Rebuilds the hourly hotspot rollup rows of the spans matching `range` (a condition). */
export const rebuildHourlySql = (range: string) => `INSERT INTO loopguard_hotspots_hourly
  SELECT ${HOUR} AS h, "ServiceName", "ToolName", "Signature", "LoopAction", count(*), max("Streak"),
    least(coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0), ${INT64_MAX}), min("StartMs"), max("StartMs"),
    coalesce(any_value("ToolArgs") FILTER ("ToolArgs" <> ''), ''), any_value("HotspotKey"),
    ${SUM_FINDING_COLUMNS_SQL}
  FROM ${SPANS_SQL} WHERE "IsCall" AND ${HAS_SIGNATURE} AND ${range}
  GROUP BY h, "ServiceName", "ToolName", "Signature", "LoopAction"`;

/** A rank counted only over the spans enforced (`shadow` false) or decided in shadow mode. */
const rank = (shadow: boolean) =>
  `coalesce(max("ActionRank") FILTER (${shadow ? '' : 'NOT '}"FShadow"), 0)`;

/** Rebuilds the hourly session rollup rows of the spans matching `range`. */
export const rebuildSessionsSql = (range: string) => `INSERT INTO loopguard_sessions_hourly
  SELECT ${HOUR} AS h, "LoopScope", "ServiceName", max("ConversationId"), count(*), max("Streak"),
    ${rank(false)}, ${sumFindingsSql('nudge', false)}, ${sumFindingsSql('warn', false)},
    ${sumFindingsSql('block', false)}, min("StartMs"), max("StartMs" + "Duration" // 1000000),
    ${rank(true)}, ${FINDING_COLUMNS.slice(4)
      .map((c) => sumFindingsSql(findingColumn(c).action, true))
      .join(', ')}
  FROM ${SPANS_SQL} WHERE "IsCall" AND "LoopScope" <> '' AND ${range}
  GROUP BY h, "LoopScope", "ServiceName"`;

/** Whether the file's hourly hotspot rollup has every column of this version. */
async function rollupsCurrent(c: DuckDBConnection): Promise<boolean> {
  const reader = await c.runAndReadAll(
    `SELECT count(*) AS n FROM duckdb_columns()
    WHERE table_name = 'loopguard_hotspots_hourly' AND column_name = 'ShadowHalts'`,
  );
  return toNumber(reader.getRowObjectsJS()[0]?.n) > 0;
}

/**
 * Brings the rollups of a file written before the finding columns (per-finding and shadow counts)
 * up to this version, inside the transaction open on `c`: the counter deltas are folded in (the
 * counters are kept as they are), the rollup tables and their deltas dropped, created anew and
 * filled from the spans stored. A no-op on a current file. Returns whether it rebuilt.
 */
export async function rebuildOldRollups(c: DuckDBConnection): Promise<boolean> {
  if (await rollupsCurrent(c)) return false;
  await c.run(foldCountersSql(DELTA_TABLES.loopguard_counters));
  await c.run(`DELETE FROM ${DELTA_TABLES.loopguard_counters}`);
  for (const table of [
    'loopguard_hotspots_hourly',
    'loopguard_hotspot_totals',
    'loopguard_sessions_hourly',
    DELTA_TABLES.loopguard_hotspots_hourly,
    DELTA_TABLES.loopguard_sessions_hourly,
  ]) {
    await c.run(`DROP TABLE IF EXISTS ${table}`);
  }
  await c.run(SCHEMA_SQL);
  await c.run(DELTA_SCHEMA_SQL);
  await c.run(rebuildHourlySql('true'));
  await c.run(rebuildSessionsSql('true'));
  await fillHotspotTotals(c);
  return true;
}
