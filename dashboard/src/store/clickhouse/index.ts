// The ClickHouse store: spans in the Collector exporter's otel_traces, counters and per-minute
// rollups filled by materialized views; the same SQL on a server (HTTP) or in-process on chDB.

export { createChdbExecutor } from './chdb-executor.js';
export type { ClickHouseConnection, InsertSettings, SqlExecutor, SqlParams } from './executor.js';
export { createHttpExecutor, parseClickHouseUrl } from './executor.js';
export type { ClickHouseStoreOptions } from './open.js';
export { createClickHouseStore } from './open.js';
export { overlaidSpans } from './schema.js';
