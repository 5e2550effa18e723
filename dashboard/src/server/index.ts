export type { DuckDbStoreOptions } from '../store/duckdb.js';
export { DEFAULT_DB_PATH, openDuckDbStore } from '../store/duckdb.js';
export type {
  CounterSnapshot,
  Hotspot,
  LoopAction,
  Page,
  PageRequest,
  QueryFilter,
  Series,
  SeriesPoint,
  SessionDetail,
  SessionRow,
  SpanRecord,
  Store,
  Summary,
  TimelineCall,
  TraceSpan,
} from '../store/types.js';
export type { AppOptions } from './app.js';
export { createApp } from './app.js';
export { parseDashboardArgs } from './dashboard-args.js';
export type { DashboardOptions, RunningDashboard } from './start.js';
export { startDashboard } from './start.js';
