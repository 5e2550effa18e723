// The JSON API under /api: its routes, and the shapes of its queries and rows (which the UI
// imports, type only).

export { detectionRoutes } from './detection.js';
export { parseDuration } from './params.js';
export { apiRoutes } from './routes.js';
export type {
  DetectionInfo,
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
  ShadowFindings,
  SpanEventRow,
  Summary,
  TimelineCall,
  TokenSpend,
  TraceSpan,
} from './types.js';
