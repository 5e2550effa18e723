// The rollups of the DuckDB store: the hourly hotspot and session rollups, the hotspot totals and
// the counters, their append-only delta tables, the folds and compaction that merge the deltas
// in, and retention's rebuild.

export { Compactor, compactIn } from './compaction.js';
export { COUNTERS_NOW_SQL, DELTA_SCHEMA_SQL, DELTA_TABLES, withDelta } from './deltas.js';
export { foldCountersSql, foldHourlySql, foldSessionsSql } from './fold.js';
export { rebuildHourlySql, rebuildOldRollups, rebuildSessionsSql } from './rebuild.js';
export { deleteBeforeIn } from './retention.js';
export {
  fillHotspotTotals,
  foldTotalsSql,
  totalsColumnsIn,
  totalsNow,
  totalsOfKeysSql,
} from './totals.js';
