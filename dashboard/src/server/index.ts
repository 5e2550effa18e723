export type { SpanRecord } from '../otlp/index.js';
export { DEFAULT_DB_PATH, openDuckDbStore } from '../store/duckdb.js';
export type {
  CounterSnapshot,
  DuckDbStoreOptions,
  Hotspot,
  LoopAction,
  Page,
  PageRequest,
  QueryFilter,
  Series,
  SeriesPoint,
  SessionDetail,
  SessionRow,
  Store,
  Summary,
  TimelineCall,
  TraceSpan,
} from '../store/types.js';
export { createApp } from './app.js';
export { parseDashboardArgs } from './dashboard-args.js';
export { startDashboard } from './start.js';
export type { AppOptions, DashboardOptions, RunningDashboard } from './types.js';
