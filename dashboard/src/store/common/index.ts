// What both stores share: the actions and their ranks, the columns' value ranges, the API rows
// built from SQL rows, paging and the counters behind /metrics. It imports neither backend.

export { ACTIONS, actionRank } from './actions.js';
export {
  clampDurationNs,
  clampTimeNs,
  INT32_MAX,
  INT32_MIN,
  MAX_TIME_NS,
  nsToMs,
} from './column-ranges.js';
export {
  counterSnapshot,
  SHADOW_DECISIONS,
  SHADOW_TOOL_CALLS,
  sumRejected,
} from './counters.js';
export { HOTSPOT_SORTS, normalizePage, SESSION_SORTS, timelinePage } from './paging.js';
export {
  hotspotRow,
  seriesFromRows,
  sessionRow,
  summaryRow,
  timelineCall,
  toNumber,
  traceSpan,
} from './rows.js';
export { loopSpend } from './spend.js';
