// The JSON API under /api: its routes, and the shapes of its queries and rows (which the UI
// imports, type only).

export { parseDuration } from './params.js';
export { apiRoutes } from './routes.js';
export type {
  Hotspot,
  LoopAction,
  LoopSpend,
  ModelPrice,
  Page,
  PageRequest,
  QueryFilter,
  Series,
  SeriesPoint,
  SessionDetail,
  SessionRow,
  SpanEventRow,
  Summary,
  TimelineCall,
  TokenSpend,
  TraceSpan,
} from './types.js';
