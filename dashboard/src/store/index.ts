import type { ClickHouseStoreOptions } from './clickhouse/index.js';
import type { Store } from './types.js';

// The stores behind the dashboard: the Store interface both backends implement (each passes the
// same conformance suite), their openers, and the values of the API's parameters they check.

export type { ClickHouseStoreOptions } from './clickhouse/index.js';
export { ACTIONS, HOTSPOT_SORTS, SESSION_SORTS } from './common/index.js';
export type { DuckDbStoreOptions } from './duckdb/index.js';
export { DEFAULT_DB_PATH, openDuckDbStore } from './duckdb/index.js';
export type { CounterSnapshot, SpendOptions, Store } from './types.js';

/**
 * Opens the ClickHouse store (see createClickHouseStore in clickhouse/). Its modules and client
 * are loaded on the first call: a DuckDB-only install never loads them.
 */
export async function createClickHouseStore(options: ClickHouseStoreOptions): Promise<Store> {
  const clickhouse = await import('./clickhouse/index.js');
  return clickhouse.createClickHouseStore(options);
}
