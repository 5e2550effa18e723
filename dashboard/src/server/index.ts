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
} from '../api/index.js';
export type { SpanRecord } from '../otlp/span.js';
export type { CounterSnapshot, DuckDbStoreOptions, Store } from '../store/index.js';
export { DEFAULT_DB_PATH, openDuckDbStore } from '../store/index.js';
export { createApp } from './app.js';
export { parseDashboardArgs } from './dashboard-args.js';
export { loadPrices, parsePrices } from './prices.js';
export { startDashboard } from './start.js';
export type { AppOptions, DashboardOptions, RunningDashboard } from './types.js';
