import type { DuckDBConnection } from '@duckdb/node-api';
import { toNumber } from '../../common/index.js';
import { HAS_SIGNATURE, HOUR_MS, INT64_MAX } from '../schema.js';
import { compactIn } from './compaction.js';
import { TOTALS_RETAIN_SQL } from './totals.js';

/** Rebuilds the rollup rows of one hour from the spans still stored (after retention). */
const ROLLUP_REBUILD_HOUR_SQL = `INSERT INTO loopguard_hotspots_hourly
  SELECT $hour, "ServiceName", "ToolName", "Signature", "LoopAction", count(*), max("Streak"),
    least(coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0), ${INT64_MAX}), min("StartMs"), max("StartMs"),
    coalesce(any_value("ToolArgs") FILTER ("ToolArgs" <> ''), ''), any_value("HotspotKey")
  FROM otel_traces WHERE "IsCall" AND ${HAS_SIGNATURE} AND "StartMs" >= $hour AND "StartMs" < $hour + 3600000
  GROUP BY ALL`;

/** Rebuilds the session rollup rows of one hour from the spans still stored. */
const SESSION_ROLLUP_REBUILD_HOUR_SQL = `INSERT INTO loopguard_sessions_hourly
  SELECT $hour, "LoopScope", "ServiceName", max("ConversationId"), count(*), max("Streak"),
    max("ActionRank"), count(*) FILTER ("LoopAction" = 'nudge'), count(*) FILTER ("LoopAction" = 'warn'),
    count(*) FILTER ("LoopAction" = 'block'), min("StartMs"), max("StartMs" + "Duration" // 1000000)
  FROM otel_traces WHERE "IsCall" AND "LoopScope" <> '' AND "StartMs" >= $hour AND "StartMs" < $hour + 3600000
  GROUP BY ALL`;

/**
 * Deletes the spans that started before `cutoffMs`, inside the transaction open on `c`: the deltas
 * are compacted first (the rollups and totals of the cutoff's hour are rebuilt from the main
 * tables), the rollup rows up to that hour are dropped and the hour rebuilt from the spans left.
 * Counters are kept. Returns the spans deleted.
 */
export async function deleteBeforeIn(c: DuckDBConnection, cutoffMs: number): Promise<number> {
  const cutoff = BigInt(Math.trunc(cutoffMs));
  const hour = BigInt(Math.floor(Number(cutoff) / HOUR_MS) * HOUR_MS);
  await compactIn(c);
  const r = await c.run(`DELETE FROM otel_traces WHERE "StartMs" < $cutoff`, { cutoff });
  await c.run(`DELETE FROM loopguard_hotspots_hourly WHERE "Hour" <= $hour`, { hour });
  await c.run(ROLLUP_REBUILD_HOUR_SQL, { hour });
  for (const sql of TOTALS_RETAIN_SQL) await c.run(sql, { hour });
  await c.run(`DELETE FROM loopguard_sessions_hourly WHERE "Hour" <= $hour`, { hour });
  await c.run(SESSION_ROLLUP_REBUILD_HOUR_SQL, { hour });
  return toNumber(r.rowsChanged);
}
