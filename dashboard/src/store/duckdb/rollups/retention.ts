import type { DuckDBConnection } from '@duckdb/node-api';
import { toNumber } from '../../common/index.js';
import { HOUR_MS } from '../schema.js';
import { compactIn } from './compaction.js';
import { rebuildHourlySql, rebuildSessionsSql } from './rebuild.js';
import { TOTALS_RETAIN_SQL } from './totals.js';

/** The spans of the hour `$hour`, as a condition. */
const IN_HOUR = '"StartMs" >= $hour AND "StartMs" < $hour + 3600000';

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
  await c.run(rebuildHourlySql(IN_HOUR), { hour });
  for (const sql of TOTALS_RETAIN_SQL) await c.run(sql, { hour });
  await c.run(`DELETE FROM loopguard_sessions_hourly WHERE "Hour" <= $hour`, { hour });
  await c.run(rebuildSessionsSql(IN_HOUR), { hour });
  return toNumber(r.rowsChanged);
}
