// The queries of the DuckDB store, each over the span table, the rollups or both.

export { queryHotspots } from './hotspots/index.js';
export {
  queryFacets,
  querySeries,
  querySession,
  querySessions,
  querySpend,
  querySummary,
  queryTrace,
} from './queries.js';
export { querySessionsRollup } from './sessions.js';
export type { Params, Reader } from './sql.js';
