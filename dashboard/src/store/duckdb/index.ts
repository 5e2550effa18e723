// The embedded DuckDB store: its opener and options.

export type { DuckDbStoreOptions } from './open.js';
export { DEFAULT_DB_PATH, openDuckDbStore } from './open.js';
